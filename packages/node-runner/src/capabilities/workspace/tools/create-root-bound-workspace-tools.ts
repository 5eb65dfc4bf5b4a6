import type { Tool } from "@castellan/harness";
import { InvalidOptionsError } from "../../../kernel/errors/errors.js";
import type { WorkspaceOperations } from "../../../platform/paths/operations.js";
import { bindWorkspaceRootSync } from "../../../platform/paths/root.js";
import { trackerOf } from "../instructions/guidance-check.js";
import type { WorkspaceInstructionsPlugin } from "../instructions/instructions-plugin.js";
import type { SearchEngine } from "../search/index.js";
import { applyWorkspacePatchTool } from "./apply-workspace-patch.js";
import { editWorkspaceFileTool } from "./edit-workspace-file.js";
import { resolveWorkspaceLimits, type WorkspaceLimits } from "./limits.js";
import { listWorkspaceTool } from "./list-workspace.js";
import { readWorkspaceFileTool } from "./read-workspace-file.js";
import { searchWorkspaceTool } from "./search-workspace.js";

/** Options of {@link createRootBoundWorkspaceTools}. */
export interface RootBoundWorkspaceToolsOptions {
  /** A `file:` URL of an existing directory; its real path is captured now and every path is resolved beneath it. */
  readonly root: URL | string;
  /** The `createWorkspaceInstructionsPlugin` object registered in the same Runner, for the same root. */
  readonly instructions: WorkspaceInstructionsPlugin;
  /** Bounds of pages, files, patches and searches; see {@link WorkspaceLimits} for defaults. */
  readonly limits?: Partial<WorkspaceLimits>;
  /** Refuse (`parent_missing`) an added or moved file whose directory is missing, instead of creating it. Default false. */
  readonly requireExistingParents?: boolean;
  /** Every file-system call the tools make goes here. Default: the local file system (`node:fs`). */
  readonly operations?: WorkspaceOperations;
  /**
   * What matches a literal search: `builtin` (default) reads every file through `operations`;
   * `ripgrep` hands the matching to `rg` (the walk, ignore rules, binary rule and pages stay
   * the same), which is faster on large trees but opens files by path without `O_NOFOLLOW`,
   * so a file swapped for a link during a search could be read through it; `auto` is
   * `ripgrep` where `rg` is on `PATH`.
   */
  readonly searchEngine?: SearchEngine;
  /**
   * Let the edit and patch tools write `.git` internals, `.castellan/`, `.castellan-sessions/`,
   * shell and tool settings and hard-linked files. Default false: refused with `path_protected`.
   */
  readonly allowProtectedWrites?: boolean;
}

/**
 * The file tools of a coding agent, bound to one directory, in this order:
 * `list_workspace`, `search_workspace`, `read_workspace_file` (read-only),
 * `edit_workspace_file` and `apply_workspace_patch` (asked about under `ask-on-write`). Paths
 * are relative POSIX paths; nothing outside the root's real path is opened through them, no
 * link is followed through a directory, and special files are never opened. The root is
 * authority for these tools only: it is not a sandbox, a command boundary or a permission.
 *
 * @throws WorkspaceRootError when `root` is not a `file:` URL of an existing directory.
 * @throws InvalidOptionsError when `instructions` is bound to another root, or for a bad limit.
 */
export function createRootBoundWorkspaceTools(options: RootBoundWorkspaceToolsOptions): readonly Tool[] {
  const where = "createRootBoundWorkspaceTools";
  if (options === null || typeof options !== "object") throw new InvalidOptionsError(`${where}: options are required.`);
  const guidance = trackerOf(options.instructions, where);
  if (options.allowProtectedWrites !== undefined && typeof options.allowProtectedWrites !== "boolean") {
    throw new InvalidOptionsError(`${where}: allowProtectedWrites must be a boolean.`);
  }
  const root = bindWorkspaceRootSync(options.root, options.operations, {
    allowProtectedWrites: options.allowProtectedWrites === true,
  });
  if (guidance.root.realPath !== root.realPath) {
    throw new InvalidOptionsError(
      `${where}: the instructions plugin reads guidance under ${guidance.root.realPath}, but the tools' root is ${root.realPath}; give both the same directory.`,
    );
  }
  if (options.requireExistingParents !== undefined && typeof options.requireExistingParents !== "boolean") {
    throw new InvalidOptionsError(`${where}: requireExistingParents must be a boolean.`);
  }
  const searchEngine = options.searchEngine ?? "builtin";
  if (!["builtin", "ripgrep", "auto"].includes(searchEngine)) {
    throw new InvalidOptionsError(`${where}: searchEngine must be "builtin", "ripgrep" or "auto".`);
  }
  const binding = Object.freeze({ root, guidance });
  const context = {
    bind: () => binding,
    limits: resolveWorkspaceLimits(options.limits, where),
    requireExistingParents: options.requireExistingParents ?? false,
    searchEngine,
  };
  return Object.freeze([
    listWorkspaceTool(context),
    searchWorkspaceTool(context),
    readWorkspaceFileTool(context),
    editWorkspaceFileTool(context),
    applyWorkspacePatchTool(context),
  ]);
}
