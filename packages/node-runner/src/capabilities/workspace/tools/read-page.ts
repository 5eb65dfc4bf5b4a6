import { ToolInputError } from "@castellan/harness";
import type { WorkspaceReadHandle } from "../../../platform/paths/open-file.js";
import { characterEnd, hasInvalidUtf8, isContinuation, sequenceLength } from "../../../platform/text/utf8.js";
import { jsonBytes } from "./results.js";

/** One page of `read_workspace_file`. */
export interface ReadPage {
  readonly path: string;
  /** The line the page starts on, from 1; null when the page was read by `offset` (knowing it would mean reading the file from its start). */
  readonly startLine: number | null;
  /** Byte offset of the page's first byte. */
  readonly offset: number;
  readonly text: string;
  /** Bytes of the file this page covers. */
  readonly bytes: number;
  /** Size of the file. */
  readonly totalBytes: number;
  /** True when more of the file follows; continue with `offset: nextOffset`. */
  readonly truncated: boolean;
  readonly nextOffset?: number;
  /** Present when the page's bytes are not valid UTF-8: they show as U+FFFD. */
  readonly invalidUtf8?: true;
}

const bufferBytes = 65_536;
/** Bytes at the start of a file checked for a NUL: a file with one is binary. */
export const binaryProbeBytes = 8_192;

/** True when the first {@link binaryProbeBytes} bytes hold a NUL. */
export async function isBinary(handle: WorkspaceReadHandle): Promise<boolean> {
  const probe = new Uint8Array(Math.min(binaryProbeBytes, handle.size));
  const count = await handle.read(probe, 0);
  return probe.subarray(0, count).includes(0);
}

/**
 * The byte offset where 1-based line `line` starts, scanning LFs through a fixed buffer. The
 * file has one line more than it has LFs (an empty file has line 1, a trailing LF starts an
 * empty last line). Out of range: `line_out_of_range` with the file's line count.
 */
export async function lineStart(handle: WorkspaceReadHandle, line: number, signal: AbortSignal): Promise<number> {
  if (line === 1) return 0;
  const buffer = new Uint8Array(bufferBytes);
  let seen = 1;
  let position = 0;
  while (true) {
    signal.throwIfAborted();
    const count = await handle.read(buffer, position);
    if (count === 0) break;
    let at = buffer.indexOf(0x0a);
    while (at !== -1 && at < count) {
      seen++;
      if (seen === line) return position + at + 1;
      at = buffer.indexOf(0x0a, at + 1);
    }
    position += count;
  }
  throw new ToolInputError(
    "line_out_of_range",
    `${handle.path} has ${seen} line${seen === 1 ? "" : "s"}; line ${line} does not exist. Read from a line from 1 to ${seen}.`,
  );
}

/** Checks an `offset` a call gave: at most the file's size, and not inside a character. */
export async function checkOffset(handle: WorkspaceReadHandle, offset: number): Promise<void> {
  if (offset > handle.size) {
    throw new ToolInputError(
      "offset_out_of_range",
      `The offset ${offset} is past the end of ${handle.path} (${handle.size} bytes). Give an offset from 0 to ${handle.size}, or a startLine.`,
    );
  }
  if (offset === 0 || offset === handle.size) return;
  const before = new Uint8Array(Math.min(4, offset));
  const after = new Uint8Array(1);
  await handle.read(before, offset - before.length);
  await handle.read(after, offset);
  if (!isContinuation(after[0] as number)) return;
  // Inside a character only when a lead byte just before it starts a sequence that covers it.
  for (let back = 1; back <= before.length; back++) {
    const byte = before[before.length - back] as number;
    if (isContinuation(byte)) continue;
    if (sequenceLength(byte) > back) {
      throw new ToolInputError(
        "offset_invalid",
        `The offset ${offset} is inside a character of ${handle.path}. Pass a page's nextOffset unchanged, or give offset ${offset - back} (where that character starts).`,
      );
    }
    return;
  }
}

/**
 * Reads the page that starts at byte `start`, as large as fits `maxPageBytes` of JSON. It
 * ends after the last LF that fits, or, for a line longer than a page, at the last whole
 * character that fits, so no page splits a character.
 */
export async function readPage(
  handle: WorkspaceReadHandle,
  start: number,
  startLine: number | null,
  maxPageBytes: number,
): Promise<ReadPage> {
  const base = { path: handle.path, startLine, offset: start, text: "", bytes: 0, totalBytes: handle.size };
  const room = maxPageBytes - jsonBytes({ ...base, truncated: true, nextOffset: handle.size, invalidUtf8: true });
  const buffer = new Uint8Array(Math.max(0, Math.min(room, handle.size - start)));
  const count = await handle.read(buffer, start);
  const atEnd = start + count >= handle.size;
  let end = atEnd ? count : pageEnd(buffer, count);
  // Escapes can make the JSON longer than the bytes: shrink until the page fits.
  while (true) {
    const page = pageOf(base, buffer.subarray(0, end), start, handle.size);
    if (jsonBytes(page) <= maxPageBytes || end === 0) return page;
    const shrunk = Math.floor((end * maxPageBytes) / jsonBytes(page) / 1.05);
    end = pageEnd(buffer, Math.min(shrunk, end - 1));
  }
}

/** Where a page of the first `limit` bytes of `buffer` ends: after its last LF, or at a character boundary when it has none. */
function pageEnd(buffer: Uint8Array, limit: number): number {
  if (limit <= 0) return 0;
  const lastLine = buffer.lastIndexOf(0x0a, limit - 1);
  return lastLine >= 0 ? lastLine + 1 : characterEnd(buffer, limit);
}

function pageOf(base: Omit<ReadPage, "truncated">, bytes: Uint8Array, start: number, size: number): ReadPage {
  const next = start + bytes.length;
  return {
    ...base,
    text: new TextDecoder().decode(bytes),
    bytes: bytes.length,
    truncated: next < size,
    ...(next < size ? { nextOffset: next } : {}),
    ...(hasInvalidUtf8(bytes) ? { invalidUtf8: true as const } : {}),
  };
}
