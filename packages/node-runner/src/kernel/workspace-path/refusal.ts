import { ToolInputError } from "@castellan/harness";

/**
 * Every code this layer refuses a workspace path with. Each is the `code` of a
 * `ToolInputError`, so a tool's result text starts with it and the model can branch on it.
 */
export type WorkspaceRefusalCode =
  /** Not a canonical relative POSIX path inside the root; found before any I/O. */
  | "path_invalid"
  /** A directory on the way is a symbolic link; links are never followed through. */
  | "path_through_symlink"
  /** The target is a symbolic link where one is not followed (writing, deleting, listing). */
  | "path_is_symlink"
  /** A symbolic link read through points outside the root (or to the root itself as a file). */
  | "symlink_outside_root"
  /** A symbolic link read through cannot be resolved: it loops. */
  | "symlink_loop"
  /** A FIFO, socket or device: never opened. */
  | "not_regular_file"
  /** Nothing exists at the path (or at a directory on the way). */
  | "path_not_found"
  /** A new file's path already exists. */
  | "path_exists"
  /** A directory where a file is expected. */
  | "path_is_directory"
  /** A file (or other non-directory) where a directory is expected. */
  | "not_a_directory"
  /** A parent directory of a new file is missing and creating it was not allowed. */
  | "parent_missing"
  /** What was validated changed before it was used (a swap, a concurrent writer). */
  | "path_changed"
  /** The workspace root itself is gone or was replaced since the tools were bound. */
  | "workspace_root_changed"
  /** A file is larger than the caller's limit for reading it whole. */
  | "file_too_large"
  /** The operating system refused access (EACCES, EPERM). */
  | "permission_denied"
  /**
   * A write to an entry the OS sandbox denies to commands (`.git` internals, Castellan's state,
   * shell and tool settings), reached by name, case variant or link, or to a hard-linked file.
   */
  | "path_protected";

/** The refusal to throw: a `ToolInputError` with one of this layer's codes. */
export function refusal(code: WorkspaceRefusalCode, message: string, cause?: unknown): ToolInputError {
  return new ToolInputError(code, message, cause === undefined ? undefined : { cause });
}

/** Longest quoted path shown in a message, in UTF-16 units; longer ones are cut in the middle. */
const shownLength = 160;

/**
 * A path quoted for a message: JSON-escaped (so control characters are visible), and cut in
 * the middle when long, so a 4 KiB path does not flood the model's context.
 */
export function quote(path: string): string {
  const shown = path.length <= shownLength ? path : `${path.slice(0, 100)}…${path.slice(-50)}`;
  return JSON.stringify(shown);
}
