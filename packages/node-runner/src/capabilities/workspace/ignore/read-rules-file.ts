import { constants } from "node:fs";
import { errorCode } from "../../../platform/paths/io-error.js";
import type { WorkspaceFileHandle } from "../../../platform/paths/operations.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";

/** Default bound of one rules file (`.gitignore`, `.git/info/exclude`): 1 MiB. */
export const defaultMaxRulesFileBytes = 1_048_576;

// O_NOFOLLOW: a rules file that is a link is not read (git does not follow a symlinked
// .gitignore either); O_NONBLOCK and O_NOCTTY: a FIFO or terminal named .gitignore must not
// block or become ours before fstat shows it is no regular file.
const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

// What an open or fstat of a rules file can meet that only means "no rules here".
const absentCodes = new Set(["ENOENT", "ENOTDIR", "ELOOP", "EACCES", "EPERM", "ENXIO", "EISDIR", "ENODEV"]);

/**
 * The text of a rules file at `absolute` (beneath the root), read through the root's
 * operations, or undefined when there is none to apply: missing, a symbolic link, not a
 * regular file, unreadable, or over `maxBytes` (the whole file is then left out, never cut
 * at a line that would change its meaning). Invalid UTF-8 decodes as U+FFFD.
 */
export async function readRulesFile(
  root: WorkspaceRoot,
  absolute: string,
  maxBytes: number,
): Promise<string | undefined> {
  let handle: WorkspaceFileHandle;
  try {
    handle = await root.operations.open(absolute, readFlags);
  } catch (error) {
    if (absentCodes.has(errorCode(error) ?? "")) return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    // One byte more than the limit shows a file that grew past it since the fstat.
    const buffer = new Uint8Array(Math.min(stats.size, maxBytes) + 1);
    let total = 0;
    while (total < buffer.length) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > maxBytes) return undefined;
    return new TextDecoder().decode(buffer.subarray(0, total));
  } catch (error) {
    if (absentCodes.has(errorCode(error) ?? "")) return undefined;
    throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
