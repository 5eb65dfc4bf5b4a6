import { checkWorkspacePath } from "../../kernel/workspace-path/check-path.js";
import type { WorkspaceEntryKind } from "./directory.js";
import { absolutePath, type WorkspaceRoot } from "./root.js";
import { notFound } from "./shared-refusals.js";
import { lstatOrMissing, walkAncestors } from "./walk.js";

/** What {@link resolveEntry} found at a path, links not followed. */
export interface WorkspaceEntry {
  /** The workspace path as given. */
  readonly path: string;
  readonly kind: WorkspaceEntryKind;
  /** Size in bytes (of the link itself for a link). */
  readonly size: number;
  /** A link's target text, as stored (not resolved, possibly outside the root); undefined for other kinds. */
  readonly linkTarget: string | undefined;
}

/**
 * Describes what is at a workspace path without following it, `.` being the root: for a
 * listing's details. Ancestors are walked as everywhere (`path_through_symlink`,
 * `not_a_directory`); nothing there is `path_not_found`. Opens nothing.
 */
export async function resolveEntry(root: WorkspaceRoot, path: string): Promise<WorkspaceEntry> {
  const segments = checkWorkspacePath(path);
  const walk = await walkAncestors(root, segments, path);
  if (walk.missingFrom !== undefined) throw notFound(segments, walk.missingFrom, path);
  const absolute = absolutePath(root, segments);
  const stats = await lstatOrMissing(root, absolute, path);
  if (!stats) throw notFound(segments, segments.length - 1, path);
  const kind: WorkspaceEntryKind = stats.isSymbolicLink()
    ? "symlink"
    : stats.isDirectory()
      ? "directory"
      : stats.isFile()
        ? "file"
        : "other";
  let linkTarget: string | undefined;
  if (kind === "symlink") linkTarget = await root.operations.readlink(absolute).catch(() => undefined);
  return Object.freeze({ path, kind, size: stats.size, linkTarget });
}
