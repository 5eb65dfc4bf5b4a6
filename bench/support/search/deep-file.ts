// The long file the deep-read section reads: numbered source-like lines of 20-60 bytes, each
// a function of its line number (so the bench knows what any line holds without keeping the
// file), written in chunks of about 1 MiB so the whole text is never in memory.
import { open } from "node:fs/promises";

/** The size of a deep-read run: the file's lines, and the line the read starts at. */
export interface DeepReadSize {
  readonly lines: number;
  /** 1-based, at most `lines`. */
  readonly startLine: number;
}

/** The default: line 1,000,000 of a 1,200,000-line file. */
export const defaultDeepReadSize: DeepReadSize = { lines: 1_200_000, startLine: 1_000_000 };

/** Throws a RangeError unless `size` has a whole number of lines and a start line among them. */
export function checkDeepReadSize(size: DeepReadSize): void {
  if (!Number.isInteger(size.lines) || size.lines < 1) {
    throw new RangeError(`The deep-read file needs a whole number of lines, not ${size.lines}.`);
  }
  if (!Number.isInteger(size.startLine) || size.startLine < 1 || size.startLine > size.lines) {
    throw new RangeError(
      `The deep-read start line must be a whole number from 1 to ${size.lines}, not ${size.startLine}.`,
    );
  }
}

/** The text of 1-based line `line`, without its LF. One form in eight has a two-byte character. */
export function deepLine(line: number): string {
  switch (line % 8) {
    case 0:
      return `export function value${line}(index: number) {`;
    case 1:
      return `  const result${line} = compute(index, ${line % 97});`;
    case 2:
      return `  // keeps the order stable (${line})`;
    case 3:
      return `  if (count > ${line % 100}) return buffer${line};`;
    case 4:
      return `  total += item${line}.size; // café`;
    case 5:
      return `  entries.push({ index, line: ${line} });`;
    case 6:
      return `  return result${line};`;
    default:
      return `} // end of value${line}`;
  }
}

const chunkBytes = 1_048_576;

/** Writes `lines` lines (each ending in LF) to `path`, a chunk at a time; resolves with the bytes written. */
export async function writeDeepFile(path: string, lines: number): Promise<number> {
  const handle = await open(path, "wx");
  let bytes = 0;
  try {
    let chunk = "";
    for (let line = 1; line <= lines; line++) {
      chunk += `${deepLine(line)}\n`;
      if (chunk.length < chunkBytes && line < lines) continue;
      const buffer = Buffer.from(chunk);
      for (let written = 0; written < buffer.length; ) {
        written += (await handle.write(buffer, written)).bytesWritten;
      }
      bytes += buffer.length;
      chunk = "";
    }
  } finally {
    await handle.close();
  }
  return bytes;
}
