import type { GuidanceTracker } from "../instructions/instructions-plugin.js";
import type { WorkspaceRoot } from "../paths/root.js";
import type { SearchEngine } from "../search/index.js";
import type { WorkspaceLimits } from "./limits.js";

/** What every tool of one `createRootBoundWorkspaceTools` call shares. */
export interface WorkspaceToolsContext {
  readonly root: WorkspaceRoot;
  readonly guidance: GuidanceTracker;
  readonly limits: WorkspaceLimits;
  /** Refuse a missing parent directory of a new file instead of creating it. */
  readonly requireExistingParents: boolean;
  /** What matches a literal search; see `RootBoundWorkspaceToolsOptions.searchEngine`. Default `builtin`. */
  readonly searchEngine?: SearchEngine;
}

/** The directory segments of a workspace path (`a/b/c.ts` → `["a", "b"]`; the root's are `[]`). */
export function directoryOf(path: string): string[] {
  if (path === ".") return [];
  const segments = path.split("/");
  segments.pop();
  return segments;
}

/** The segments of a directory's own workspace path (`.` → `[]`). */
export function segmentsOf(path: string): string[] {
  return path === "." ? [] : path.split("/");
}
