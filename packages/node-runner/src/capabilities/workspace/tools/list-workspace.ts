import { defineTool, type Tool, ToolInputError } from "@castellan/harness";
import { isWorkspacePath } from "../../../kernel/workspace-path/check-path.js";
import type { WorkspaceEntryKind } from "../../../platform/paths/directory.js";
import type { IgnoreScope } from "../ignore/index.js";
import { discoverGuidance } from "../instructions/guidance-check.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { jsonBytes, jsonResult, refusalsAsResults } from "./results.js";
import { segmentsOf, type WorkspaceToolsContext } from "./workspace-context.js";

/** The input of `list_workspace`. */
export interface ListWorkspaceInput {
  /** A directory, relative to the root. Default `.`, the root. */
  readonly path?: string;
  /** List the whole tree below it, depth first. Default false. */
  readonly recursive?: boolean;
  /** A previous page's `nextOffset`. */
  readonly offset?: string;
}

/** One listed entry. */
export interface ListedEntry {
  readonly path: string;
  readonly type: WorkspaceEntryKind;
  /** A file's size in bytes. */
  readonly bytes?: number;
}

/** One page of `list_workspace`. */
export interface ListPage {
  readonly path: string;
  readonly entries: readonly ListedEntry[];
  readonly truncated: boolean;
  readonly nextOffset?: string;
}

/**
 * `list_workspace`: a directory's entries (`{ path, type, bytes? }`) in UTF-8 byte order of
 * name, links shown as `symlink` and never followed. `recursive` lists the tree below, depth
 * first, skipping `.git/` and what `.gitignore` files and `.git/info/exclude` ignore. The
 * root's `.castellan/` and `.castellan-sessions/` are left out of every listing of the root,
 * flat or recursive; listing one of them by its path still shows it. A page
 * is at most `maxPageBytes` of JSON; continue with `offset: nextOffset`. Entries whose names
 * cannot be written as a workspace path (a backslash or control character) are left out.
 * Read-only.
 */
export function listWorkspaceTool(context: WorkspaceToolsContext): Tool<ListWorkspaceInput> {
  const { limits } = context;
  return defineTool<ListWorkspaceInput>({
    name: "list_workspace",
    description:
      "List the files and directories in a workspace directory (default: the root). recursive lists the whole tree below it, skipping .git and ignored files; Castellan's own state (.castellan, .castellan-sessions) is never listed. Returns { path, entries: [{ path, type, bytes? }], truncated, nextOffset? }; pass nextOffset as offset for the next page.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Directory relative to the workspace root; . for the root." },
        recursive: { type: "boolean", description: "List every entry below the directory." },
        offset: { type: "string", description: "A previous page's nextOffset." },
      },
      additionalProperties: false,
    },
    readOnly: true,
    execute: (input, ctx) =>
      refusalsAsResults(async () => {
        const { root, guidance } = context.bind(ctx);
        // The directory walk and the ignore rules load on the first listing rather than with the package.
        const [{ readDirectory, resolveDirectory }, { resolveEntry }, ignoreRules] = await Promise.all([
          import("../../../platform/paths/directory.js"),
          import("../../../platform/paths/entry.js"),
          import("../ignore/index.js"),
        ]);
        const { enterIgnoreDirectory, ignoreScopeFor, isCastellanState, isIgnored } = ignoreRules;
        const path = input.path ?? ".";
        const recursive = input.recursive ?? false;
        const call = { path, recursive };
        const after = input.offset === undefined ? undefined : afterOf(decodeCursor(input.offset, "list", call));
        const start = await resolveDirectory(root, path);
        await discoverGuidance(guidance, ctx, segmentsOf(path));
        // Ignore rules apply below the listed directory; the directory itself was asked for by name.
        const scope = recursive ? await ignoreScopeFor(root, segmentsOf(path)) : undefined;
        const entries: ListedEntry[] = [];
        const base = jsonBytes({ path, entries: [], truncated: true, nextOffset: "" });
        let used = base;
        let full = false;
        let last: string | undefined;

        // Depth first, children in byte order: the walk order is the byte order of the segment lists.
        const visit = async (directoryPath: string, ignore: IgnoreScope | undefined): Promise<void> => {
          const directory = directoryPath === path ? start : await resolveDirectory(root, directoryPath);
          for (const entry of await readDirectory(directory)) {
            if (full) return;
            if (entry.path === undefined) continue;
            if (recursive && entry.name === ".git") continue;
            const segments = entry.path.split("/");
            // Castellan's state (transcripts among it) is never listed from the root, even flat.
            if (segments.length === 1 && isCastellanState(entry.name)) continue;
            if (ignore && isIgnored(ignore, segments, entry.kind === "directory")) continue;
            const position = comparePaths(entry.path, after);
            const descend = recursive && entry.kind === "directory";
            if (position > 0) {
              const listed = await describeEntry(entry.path, entry.kind);
              const cost = jsonBytes(listed) + 1 + cursorBytes(entry.path, call);
              if (used + cost > limits.maxPageBytes) {
                full = true;
                return;
              }
              used += jsonBytes(listed) + 1;
              entries.push(listed);
              last = entry.path;
              if (descend) await visit(entry.path, await enterIgnoreDirectory(root, ignore as IgnoreScope, segments));
            } else if (descend && after !== undefined && isInside(after, entry.path)) {
              // The cursor is below this directory: its earlier entries were on earlier pages.
              await visit(entry.path, await enterIgnoreDirectory(root, ignore as IgnoreScope, segments));
            }
          }
        };

        const describeEntry = async (entryPath: string, kind: WorkspaceEntryKind): Promise<ListedEntry> => {
          if (kind !== "file") return { path: entryPath, type: kind };
          const found = await resolveEntry(root, entryPath);
          return { path: entryPath, type: found.kind, ...(found.kind === "file" ? { bytes: found.size } : {}) };
        };

        await visit(path, scope);
        const page: ListPage = {
          path,
          entries,
          truncated: full,
          ...(full && last !== undefined ? { nextOffset: encodeCursor("list", call, { after: last }) } : {}),
        };
        return jsonResult(page);
      }),
  });
}

function afterOf(position: unknown): string {
  const after = (position as { after?: unknown } | null)?.after;
  if (typeof after !== "string" || !isWorkspacePath(after)) {
    throw new ToolInputError(
      "offset_invalid",
      "This offset is not a nextOffset list_workspace returned; omit it to start again.",
    );
  }
  return after;
}

function cursorBytes(path: string, call: Readonly<Record<string, unknown>>): number {
  return Buffer.byteLength(encodeCursor("list", call, { after: path }), "utf8");
}

/** True when `path` is `directory` or below it. */
function isInside(path: string, directory: string): boolean {
  return path === directory || path.startsWith(`${directory}/`);
}

/**
 * Where `path` falls in the walk against the cursor's last listed path: > 0 after it, ≤ 0 at
 * or before it. Pre-order depth first with byte-ordered names is the order of the segment
 * lists, compared segment by segment in UTF-8 bytes.
 */
function comparePaths(path: string, after: string | undefined): number {
  if (after === undefined) return 1;
  const left = path.split("/");
  const right = after.split("/");
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const order = Buffer.compare(
      Buffer.from(left[index] as string, "utf8"),
      Buffer.from(right[index] as string, "utf8"),
    );
    if (order !== 0) return order;
  }
  return left.length - right.length;
}
