// A stdio MCP server speaks one JSON-RPC message a line. A server that never ends its line must
// not make the host hold, or re-scan, everything it sent: each byte is looked at once for the
// newline and copied at most once into a buffer that grows by doubling up to the bound.

/** Bytes one message line may hold, as the MCP SDK's own stdio ReadBuffer: 10 MiB. */
export const maxMessageBytes = 10 * 1024 * 1024;

/** The first capacity of the line buffer; it doubles from here as an unfinished line grows. */
const initialCapacity = 64 * 1024;

/**
 * Splits a byte stream into lines (`\n`, an optional `\r` before it dropped), with a bound on
 * one line's bytes. Work is linear in the bytes pushed; the memory held is the unfinished line
 * only, at most twice its length and never over `maxLineBytes`. Once a line goes over the
 * bound the reader is spent: `push` returns false and every later push is ignored.
 */
export class LineReader {
  /** The bound, in bytes, of one line without its newline; default 10 MiB ({@link maxMessageBytes}). */
  readonly maxLineBytes: number;
  #buffer = Buffer.alloc(0);
  #length = 0;
  #overflowed = false;

  constructor(maxLineBytes: number = maxMessageBytes) {
    this.maxLineBytes = maxLineBytes;
  }

  /** True once a line went over the bound. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** Bytes of the unfinished line held now. */
  get pendingBytes(): number {
    return this.#length;
  }

  /** Feeds bytes; `onLine` gets each complete line. False (and nothing more is read) once a line is over the bound. */
  push(chunk: Buffer, onLine: (line: string) => void): boolean {
    if (this.#overflowed) return false;
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      let line: string;
      if (this.#length === 0) {
        // The whole line is in this chunk: decoded in place, never copied.
        if (newline - start > this.maxLineBytes) return this.#overflow();
        line = chunk.toString("utf8", start, newline);
      } else {
        if (!this.#append(chunk, start, newline)) return false;
        line = this.#buffer.toString("utf8", 0, this.#length);
        this.#release();
      }
      start = newline + 1;
      onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
      // A line handler may have ended the stream (and this reader's use) on what it read.
      if (this.#overflowed) return false;
    }
    return this.#append(chunk, start, chunk.length);
  }

  #append(chunk: Buffer, from: number, to: number): boolean {
    const bytes = to - from;
    if (bytes === 0) return true;
    const needed = this.#length + bytes;
    if (needed > this.maxLineBytes) return this.#overflow();
    if (needed > this.#buffer.length) {
      let capacity = Math.max(initialCapacity, this.#buffer.length);
      while (capacity < needed) capacity *= 2;
      const grown = Buffer.allocUnsafe(Math.min(capacity, this.maxLineBytes));
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    chunk.copy(this.#buffer, this.#length, from, to);
    this.#length = needed;
    return true;
  }

  /** Forgets the finished line; a large buffer is let go, so an idle server costs nothing. */
  #release(): void {
    this.#length = 0;
    if (this.#buffer.length > initialCapacity) this.#buffer = Buffer.alloc(0);
  }

  #overflow(): false {
    this.#overflowed = true;
    this.#length = 0;
    this.#buffer = Buffer.alloc(0);
    return false;
  }
}
