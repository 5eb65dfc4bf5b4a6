import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** What a bounded read of one file found. */
export type BoundedFile =
  | { readonly kind: "read"; readonly bytes: Buffer }
  /** Over the bound; `size` is at least the size seen (the file may still be growing). */
  | { readonly kind: "too-large"; readonly size: number }
  /** A directory, device, FIFO or socket: nothing the server reads as text. */
  | { readonly kind: "not-a-file" }
  /** The last component became a symlink after the caller checked it. */
  | { readonly kind: "symlink" };

/**
 * Reads the regular file at `path`, at most `maxBytes` of it. The last component is opened
 * with O_NOFOLLOW, so a file swapped for a symlink after the caller's check is refused rather
 * than followed, and with O_NONBLOCK, so a FIFO put in its place cannot hang the job. A
 * missing file rejects (ENOENT) for the caller to tell apart.
 */
export async function readBoundedFile(path: string, maxBytes: number): Promise<BoundedFile> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === "ELOOP") return { kind: "symlink" };
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { kind: "not-a-file" };
    if (stats.size > maxBytes) return { kind: "too-large", size: stats.size };
    // The file can grow after the stat: read one byte past the bound to see that it did.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return { kind: "too-large", size: length };
    return { kind: "read", bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

/** `bytes` as text when they are valid UTF-8 (a leading byte-order mark dropped), else undefined. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The `code` of a Node system error (ENOENT, EACCES…), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
