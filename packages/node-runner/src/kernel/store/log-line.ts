import type { crc32 as Crc32 } from "node:zlib";
import type { SessionRecord } from "./records.js";

// One line of a session log file:
//   {"seq":N,"at":"<ISO time>","record":{...},"crc":"xxxxxxxx"}\n
// The crc is CRC-32 of the line's bytes with its `,"crc":"xxxxxxxx"` removed, i.e. of the
// serialized `{seq,at,record}`. Because that suffix has a fixed length, a reader finds it by
// offset and checks the raw bytes without serializing anything again.

/** `,"crc":"` + 8 hex digits + `"}`: the fixed tail of every line (without its newline). */
export const crcTailLength = 18;
const crcTailStart = ',"crc":"';
const closingBrace = Buffer.from("}");

let loadedCrc32: typeof Crc32 | undefined;
/** zlib's CRC-32, loaded with the first line written or read rather than with the package. */
function zlibCrc32(): typeof Crc32 {
  loadedCrc32 ??= process.getBuiltinModule("node:zlib").crc32;
  return loadedCrc32;
}

/** The 8 lowercase hex digits of a CRC-32 value. */
export function crcHex(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}

/**
 * The line (with its trailing newline) that stores `record` as number `seq`, written `at`.
 * Throws what JSON.stringify throws (a BigInt, a cycle); properties that are undefined are
 * dropped, as JSON does.
 */
export function encodeLogLine(seq: number, at: string, record: SessionRecord): string {
  const body = JSON.stringify({ seq, at, record });
  // crc32 of a string hashes its UTF-8 bytes, which are exactly the bytes written below.
  const crc32 = zlibCrc32();
  return `${body.slice(0, -1)}${crcTailStart}${crcHex(crc32(body))}"}\n`;
}

/**
 * Checks the crc of one line given as bytes `[start, end)` of `bytes` (without the newline).
 * Returns undefined when it matches, or what is wrong.
 */
export function checkLineCrc(bytes: Buffer, start: number, end: number, text: string): string | undefined {
  const length = text.length;
  if (
    length < crcTailLength + 2 ||
    !text.startsWith(crcTailStart, length - crcTailLength) ||
    text.charCodeAt(length - 2) !== 0x22 /* " */ ||
    text.charCodeAt(length - 1) !== 0x7d /* } */
  ) {
    return 'the line does not end with a "crc" field';
  }
  // The tail is ASCII, so its length in bytes equals its length in characters.
  const covered = bytes.subarray(start, end - crcTailLength);
  const crc32 = zlibCrc32();
  const actual = crcHex(crc32(closingBrace, crc32(covered)));
  const stored = text.slice(length - 10, length - 2);
  return stored === actual ? undefined : `the crc is ${stored} but the line's bytes give ${actual}`;
}
