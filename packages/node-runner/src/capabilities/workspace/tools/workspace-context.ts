import type { BindingHandle } from "@castellan/harness";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import type { GuidanceTracker } from "../instructions/instructions-plugin.js";
import type { SearchEngine } from "../search/index.js";
import type { WorkspaceLimits } from "./limits.js";

/** The directory a call works in and the guidance that governs it. */
export interface WorkspaceBinding {
  readonly root: WorkspaceRoot;
  readonly guidance: GuidanceTracker;
}

/** What a tool call is, for finding its binding: its Session, and what the Session acquired. */
export interface WorkspaceCallScope {
  readonly sessionId: string;
  readonly sandbox: unknown;
  readonly resources: readonly BindingHandle[];
}

/** What every tool of one set of workspace file tools shares. */
export interface WorkspaceToolsContext {
  /** The binding of a call: one fixed root for `createRootBoundWorkspaceTools`, the Session's own for `workspace()`. */
  bind(call: WorkspaceCallScope): WorkspaceBinding;
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
