/**
 * The first bytes of the line being scanned that left the scan window: a scanner copies a
 * line's bytes here before dropping them, up to `capacity` (`maxLineBytes + 1`), so a hit's
 * text never needs more of a long line than that. While it holds fewer than `capacity`
 * bytes, they are exactly the line's bytes before the window.
 */
export class LinePrefix {
  private readonly bytes: Uint8Array;
  /** Bytes held. */
  length = 0;

  constructor(readonly capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Empties it for a new line. */
  clear(): void {
    this.length = 0;
  }

  /** True once it holds `capacity` bytes: all a hit's text can use. */
  get full(): boolean {
    return this.length >= this.capacity;
  }

  /** Appends what still fits of `source[from, to)`. */
  extend(source: Uint8Array, from: number, to: number): void {
    const count = Math.min(to - from, this.capacity - this.length);
    if (count <= 0) return;
    this.bytes.set(source.subarray(from, from + count), this.length);
    this.length += count;
  }

  /**
   * The line's first bytes: those held, then those of `window` from 0 to `end` (where the
   * line continues at the window's start), at most `capacity` in all. A view when it can be.
   */
  joined(window: Uint8Array, end: number): Uint8Array {
    if (this.full || end <= 0) return this.bytes.subarray(0, this.length);
    const more = Math.min(end, this.capacity - this.length);
    const joined = new Uint8Array(this.length + more);
    joined.set(this.bytes.subarray(0, this.length));
    joined.set(window.subarray(0, more), this.length);
    return joined;
  }
}
