import { constants } from "node:fs";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { identityOf, sameIdentity } from "./identity.js";
import { errorCode, ioFailure } from "./io-error.js";
import type { WorkspaceFileHandle } from "./operations.js";
import { type ResolutionState, stateOf } from "./resolution.js";
import { type ResolvedFile, resolveForRead } from "./resolve-read.js";
import type { WriteTarget } from "./resolve-write.js";
import type { WorkspaceRoot } from "./root.js";
import { changed } from "./shared-refusals.js";
import { verifyDirectories } from "./walk.js";

// O_NOFOLLOW: the last segment was validated as no link; O_NONBLOCK: a FIFO swapped in since
// must not block the open; O_NOCTTY: a terminal swapped in must not become ours.
const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * An open regular file inside the root, for reading page by page with a buffer of the
 * caller's size: nothing here reads more than asked, so a 1 GB sparse file or a 10 MB line
 * costs only the pages read. Close it when done (`try`/`finally`).
 */
export interface WorkspaceReadHandle {
  /** The workspace path it was opened by. */
  readonly path: string;
  /** Size in bytes when opened. The file may change while open; reads then see the new bytes. */
  readonly size: number;
  /**
   * Fills `buffer` from the byte at `position` (a non-negative safe integer) and returns the
   * count read: less than `buffer.length` only at the end of the file, 0 past it.
   */
  read(buffer: Uint8Array, position: number): Promise<number>;
  /** Closes the file; later reads throw. Closing again does nothing. */
  close(): Promise<void>;
}

/** Resolves `path` for reading ({@link resolveForRead}) and opens it ({@link openResolvedFile}). */
export async function openFileForReading(root: WorkspaceRoot, path: string): Promise<WorkspaceReadHandle> {
  return openResolvedFile(await resolveForRead(root, path));
}

/**
 * Opens a file validated by `resolveForRead`, or an existing `resolveForWrite` target, with
 * `O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`, then checks the open file is a regular
 * file with the identity validated and that no directory on the way changed: `path_changed`
 * otherwise (a swap between validation and open), and the file is closed again.
 */
export async function openResolvedFile(file: ResolvedFile | WriteTarget): Promise<WorkspaceReadHandle> {
  const state = stateOf(file, ["read", "write"], "openResolvedFile");
  return openState(state);
}

/**
 * Reads a whole file validated by `resolveForRead` or `resolveForWrite` (an existing target,
 * for an edit or a patch): `file_too_large`, with its size and the limit, before reading
 * anything when it is over `maxBytes` (a non-negative safe integer), and after at most
 * `maxBytes + 1` bytes when it grows past the limit while being read.
 */
export async function readWholeFile(file: ResolvedFile | WriteTarget, maxBytes: number): Promise<Uint8Array> {
  const state = stateOf(file, ["read", "write"], "readWholeFile");
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`readWholeFile: maxBytes must be a non-negative safe integer, not ${maxBytes}.`);
  }
  const handle = await openState(state);
  try {
    if (handle.size > maxBytes) throw tooLarge(state.path, `is ${handle.size}`, maxBytes);
    const limit = maxBytes + 1;
    // One byte more than the size shows growth without a second read in the usual case.
    let buffer = new Uint8Array(Math.min(handle.size + 1, limit));
    let total = await handle.read(buffer, 0);
    while (total === buffer.length && buffer.length < limit) {
      const larger = new Uint8Array(Math.min(buffer.length * 2, limit));
      larger.set(buffer);
      buffer = larger;
      total += await handle.read(buffer.subarray(total), total);
    }
    if (total > maxBytes) throw tooLarge(state.path, `grew while being read to more than ${maxBytes}`, maxBytes);
    return buffer.subarray(0, total);
  } finally {
    await handle.close();
  }
}

async function openState(state: ResolutionState): Promise<WorkspaceReadHandle> {
  const { root, path } = state;
  if (!state.identity) {
    throw refusal("path_not_found", `${quote(path)} does not exist yet, so it cannot be read.`);
  }
  if (state.used) throw new TypeError("This WriteTarget was already written or deleted; resolve the path again.");
  let handle: WorkspaceFileHandle;
  try {
    handle = await root.operations.open(state.absolute, readFlags);
  } catch (error) {
    // ELOOP: the file became a link; ENOENT, ENOTDIR: it or a directory on the way moved.
    if (["ELOOP", "ENOENT", "ENOTDIR"].includes(errorCode(error) ?? "")) throw changed(path, path);
    throw ioFailure(error, path);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || !sameIdentity(identityOf(stats), state.identity)) throw changed(path, path);
    await verifyDirectories(root, state.directories, path);
    return readHandle(path, stats.size, handle);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

function readHandle(path: string, size: number, handle: WorkspaceFileHandle): WorkspaceReadHandle {
  let closed = false;
  return Object.freeze({
    path,
    size,
    async read(buffer: Uint8Array, position: number): Promise<number> {
      if (closed) throw new Error(`The file ${quote(path)} is closed.`);
      if (!(buffer instanceof Uint8Array)) throw new TypeError("read: buffer must be a Uint8Array.");
      if (!Number.isSafeInteger(position) || position < 0) {
        throw new RangeError(`read: position must be a non-negative safe integer, not ${position}.`);
      }
      let total = 0;
      while (total < buffer.length) {
        const { bytesRead } = await handle.read(buffer, total, buffer.length - total, position + total);
        if (bytesRead === 0) break;
        total += bytesRead;
      }
      return total;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  });
}

/** `file_too_large`; `size` completes "<path> ... bytes", e.g. `is 5000`. */
function tooLarge(path: string, size: string, maxBytes: number): Error {
  return refusal(
    "file_too_large",
    `${quote(path)} ${size} bytes; the limit for reading a file whole is ${maxBytes} bytes. Read it in pages instead.`,
  );
}
