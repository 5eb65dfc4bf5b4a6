import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import { builtinSearch, type SearchCall } from "./builtin-search.js";
import { decodeCursor, invalidOffset } from "./cursor.js";
import { checkRequest, resolveSettings, type SearchRequest, type SearchSettings } from "./request.js";
import { findRipgrep } from "./ripgrep/find-ripgrep.js";
import { ripgrepSearch } from "./ripgrep-search.js";
import { resolveSearchStart } from "./start.js";
import type { SearchWorkspaceInput, SearchWorkspaceOptions, SearchWorkspacePage } from "./types.js";

/**
 * Searches the files of a workspace root for lines containing `input.query`, and returns
 * one page of hits (see {@link SearchWorkspacePage}); pass its `nextOffset` back as `offset`
 * for the next. The walk is depth first in UTF-8 byte order of names, honours `.gitignore`
 * files (root and nested) and `.git/info/exclude`, skips `.git` and the root's `.castellan/` and `.castellan-sessions/`, binary files (a NUL in the
 * first 8 KiB), links (never followed), FIFOs, sockets and devices (never opened). Every
 * file-system call goes through `root.operations`.
 *
 * Refusals (`ToolInputError`, for the model): `query_invalid`, `glob_invalid`,
 * `offset_invalid`, and the path layer's (`path_invalid`, `path_not_found`,
 * `path_through_symlink`, `path_is_symlink`, `not_regular_file`, ...). A bad option is a
 * `RangeError`; an abort of `options.signal` rejects with its reason.
 */
export async function searchWorkspace(
  root: WorkspaceRoot,
  input: SearchWorkspaceInput,
  options: SearchWorkspaceOptions = {},
): Promise<SearchWorkspacePage> {
  const settings = resolveSettings(options);
  const request = checkRequest(input);
  const deadline = Date.now() + settings.searchTimeoutMs;
  settings.signal?.throwIfAborted();
  const start = await resolveSearchStart(root, request.path, request.segments);
  const cursor = request.offset === undefined ? undefined : decodeCursor(request, request.offset);
  if (cursor && start.kind === "file" && cursor.path !== start.path) throw invalidOffset();
  const call: SearchCall = { root, request, settings, start, cursor, deadline };
  const ripgrep = ripgrepFor(request, settings);
  return ripgrep === undefined ? builtinSearch(call) : ripgrepSearch(call, ripgrep);
}

/**
 * The rg executable when the ripgrep engine runs this search: a case-sensitive literal with
 * engine `ripgrep` or `auto`, and rg found (`ripgrep` without rg is an error). Otherwise
 * undefined: the built-in engine.
 */
function ripgrepFor(request: SearchRequest, settings: SearchSettings): string | undefined {
  if (settings.engine === "builtin" || request.regex || request.ignoreCase) return undefined;
  const executable = settings.ripgrepPath ?? findRipgrep();
  if (executable === undefined && settings.engine === "ripgrep") {
    throw new Error('engine "ripgrep" was asked for, but no rg executable is on PATH; give ripgrepPath or use "auto".');
  }
  return executable;
}
