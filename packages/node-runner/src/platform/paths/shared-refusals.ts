// Internal to platform/paths: the refusals several resolvers share, worded alike.
import { joinSegments } from "../../kernel/workspace-path/check-path.js";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import type { WorkspaceStats } from "./operations.js";
import type { WorkspaceRoot } from "./root.js";

/** `path_not_found` for a path whose segment at `index` is missing. */
export function notFound(segments: readonly string[], index: number, path: string): Error {
  const parent = joinSegments(segments, index);
  const missing = joinSegments(segments, index + 1);
  const what = index === segments.length - 1 ? "" : ` (on the way to ${quote(path)})`;
  return refusal(
    "path_not_found",
    `${quote(missing)} does not exist${what}. List ${quote(parent)} to see what is there.`,
  );
}

/** `not_regular_file`: a FIFO, socket or device is never opened. */
export function notRegular(path: string, kind: string): Error {
  return refusal(
    "not_regular_file",
    `${quote(path)} is ${kind}, not a regular file; only regular files can be read or written.`,
  );
}

/** `path_is_directory` for `.`: the root is a directory. */
export function rootIsDirectory(): Error {
  return refusal("path_is_directory", `"." is the workspace root, a directory. Give the path of a file inside it.`);
}

/** The `path_changed` refusal for `path` (a directory on the way to `shown`, or `shown` itself). */
export function changed(path: string, shown: string): Error {
  const where = path === shown ? quote(shown) : `${quote(path)} (on the way to ${quote(shown)})`;
  return refusal(
    "path_changed",
    `${where} changed while this call was using it (it was replaced, moved, or became a symbolic link), so nothing was done to it. Check the path and call again.`,
  );
}

/** `workspace_root_changed`: the bound directory is gone or was replaced. */
export function rootChanged(root: WorkspaceRoot): Error {
  return refusal(
    "workspace_root_changed",
    `The workspace root ${root.url.href} is no longer the directory the tools were bound to; workspace tools cannot be used until it is restored.`,
  );
}

/** What a non-link, for messages: "a regular file", "a directory", "a FIFO", ... */
export function kindOf(stats: WorkspaceStats): string {
  if (stats.isFile()) return "a regular file";
  if (stats.isDirectory()) return "a directory";
  if (stats.isSymbolicLink()) return "a symbolic link";
  switch (stats.mode & 0o170000) {
    case 0o010000:
      return "a FIFO (named pipe)";
    case 0o140000:
      return "a socket";
    case 0o020000:
      return "a character device";
    case 0o060000:
      return "a block device";
    default:
      return "not a regular file";
  }
}
