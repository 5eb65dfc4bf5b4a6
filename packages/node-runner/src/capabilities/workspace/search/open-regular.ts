import { constants } from "node:fs";
import { errorCode } from "../../../platform/paths/io-error.js";
import type { WorkspaceFileHandle } from "../../../platform/paths/operations.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";

// O_NOFOLLOW: an entry swapped for a link since the directory was read is not followed;
// O_NONBLOCK and O_NOCTTY: a FIFO or terminal swapped in neither blocks the open nor becomes
// ours, and fstat then shows it is no regular file.
const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

// A file that vanished, became a link or a directory, or is unreadable is skipped, as a
// walk skips what it cannot search; anything else (EMFILE, EIO) is the call's failure.
const skippedCodes = new Set(["ENOENT", "ENOTDIR", "ELOOP", "EACCES", "EPERM", "ENXIO", "EISDIR", "ENODEV", "EAGAIN"]);

/** True for an error that means "skip this file" rather than "the search failed". */
export function isSkippable(error: unknown): boolean {
  return skippedCodes.has(errorCode(error) ?? "");
}

/**
 * Opens the file at `absolute` through the root's operations for reading, without following
 * a link at its last segment, and keeps it only if `fstat` shows a regular file; undefined
 * (closed again) for anything to skip.
 */
export async function openRegularFile(root: WorkspaceRoot, absolute: string): Promise<WorkspaceFileHandle | undefined> {
  let handle: WorkspaceFileHandle;
  try {
    handle = await root.operations.open(absolute, readFlags);
  } catch (error) {
    if (isSkippable(error)) return undefined;
    throw error;
  }
  try {
    if ((await handle.stat()).isFile()) return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (isSkippable(error)) return undefined;
    throw error;
  }
  await handle.close().catch(() => undefined);
  return undefined;
}
