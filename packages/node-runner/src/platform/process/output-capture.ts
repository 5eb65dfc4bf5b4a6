import { decodeUtf8, incompleteTailLength, leadingContinuationLength } from "../text/utf8.js";
import { BytePrefix, ByteRing } from "./byte-window.js";

/**
 * One stream's output over some span (the whole run, or what is new since the last read),
 * bounded: when the span is longer than the bound, the first and the last half of its bytes
 * are kept and the bytes between them are dropped. Cuts fall between UTF-8 characters.
 */
export interface BoundedOutput {
  /** The kept bytes as text: the first half, then the last half. Invalid UTF-8 reads as U+FFFD. */
  readonly text: string;
  /** Every byte the span holds, kept or dropped (so the kept bytes are `bytes - droppedBytes`). */
  readonly bytes: number;
  /** How many bytes between the two halves were dropped; 0 when the span fit the bound. */
  readonly droppedBytes: number;
  /** The index in `text` (UTF-16 units) where the dropped bytes were, or null when none were dropped. */
  readonly droppedAt: number | null;
}

const empty: BoundedOutput = Object.freeze({ text: "", bytes: 0, droppedBytes: 0, droppedAt: null });

/**
 * The output of one stream, held within its bound for two readers at once: the whole-run view
 * (the final receipt, a listing) and the deltas read by polls, each bounded to `bound` bytes.
 *
 * Both views end with the stream's last bytes, so one ring of the last half serves both. The
 * whole run's first half is kept from the start; a delta's first half, the bytes right after
 * the previous read, is kept from that read on in a second prefix, only where the first does
 * not already hold them. Retained: at most `bound + 3` bytes until a delta is read, then at
 * most `bound + 3 + min(bound / 2, bytes read)`. More cannot be avoided: while a delta is
 * unread, its first half is neither the run's first half nor the last bytes. A chunk written
 * is copied from, never kept.
 *
 * While the stream is open, a character whose last bytes have not arrived is left out of both
 * views until they do; after {@link end} everything is read, invalid bytes as U+FFFD.
 */
export class OutputCapture {
  /** The most bytes a view keeps. */
  readonly bound: number;
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: BytePrefix;
  readonly #tail: ByteRing;
  /** The first half of the next delta, where `#head` does not hold it. */
  #deltaHead: BytePrefix;
  #total = 0;
  #cursor = 0;
  /** Once ended: the whole run, and the delta not yet read (undefined once read). */
  #final: { readonly whole: BoundedOutput; delta: BoundedOutput | undefined } | undefined;

  /** `bound` in bytes, at least 8 (the supervisor's own range is checked by its options). */
  constructor(bound: number) {
    if (!Number.isInteger(bound) || bound < 8)
      throw new RangeError(`An output bound must be an integer of at least 8; got ${bound}.`);
    this.bound = bound;
    this.#headLimit = Math.floor(bound / 2);
    this.#tailLimit = bound - this.#headLimit;
    this.#head = new BytePrefix(0, this.#headLimit);
    // Three bytes more than a view's last half: a view that ends before an incomplete last
    // character still has its whole last half.
    this.#tail = new ByteRing(this.#headLimit, this.#tailLimit + 3);
    this.#deltaHead = this.#newDeltaHead();
  }

  /** Every byte written so far. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Bytes of buffer allocated for this stream now: at most one and a half times `bound`, plus 3; none once ended. */
  get retainedBytes(): number {
    return this.#head.retainedBytes + this.#tail.retainedBytes + this.#deltaHead.retainedBytes;
  }

  /** Takes a chunk of the stream; nothing of `chunk` is kept beyond what the views need. */
  write(chunk: Uint8Array): void {
    if (this.#final !== undefined || chunk.length === 0) return;
    this.#head.offer(this.#total, chunk);
    this.#deltaHead.offer(this.#total, chunk);
    this.#tail.offer(this.#total, chunk);
    this.#total += chunk.length;
  }

  /**
   * The stream is closed: an incomplete last character is read as it is, both views are
   * made final, and the bytes are released (an ended command keeps text, not buffers).
   */
  end(): void {
    if (this.#final !== undefined) return;
    const whole = this.#view(0, this.#total);
    const delta = this.#cursor === 0 ? whole : this.#view(this.#cursor, this.#total);
    this.#final = { whole, delta: delta.bytes === 0 ? undefined : delta };
    this.#head.release();
    this.#tail.release();
    this.#deltaHead.release();
  }

  /** The whole run, bounded; reading it moves nothing. */
  whole(): BoundedOutput {
    return this.#final?.whole ?? this.#view(0, this.#readableEnd());
  }

  /** How many new bytes a {@link readDelta} would return now (complete characters only while open). */
  get unreadBytes(): number {
    if (this.#final !== undefined) return this.#final.delta?.bytes ?? 0;
    return Math.max(0, this.#readableEnd() - this.#cursor);
  }

  /** What is new since the previous call (or since the start), bounded; the next call starts after it. */
  readDelta(): BoundedOutput {
    if (this.#final !== undefined) {
      const delta = this.#final.delta ?? empty;
      this.#final.delta = undefined;
      return delta;
    }
    const from = this.#cursor;
    const to = this.#readableEnd();
    if (to <= from) return empty;
    const delta = this.#view(from, to);
    this.#cursor = to;
    this.#deltaHead = this.#newDeltaHead();
    return delta;
  }

  /** The stream's end, less a trailing incomplete character (the stream is open). */
  #readableEnd(): number {
    const last = this.#bytes(Math.max(0, this.#total - 3), this.#total);
    return this.#total - incompleteTailLength(last);
  }

  /** Positions [from, to) bounded: whole when they fit, else the first and last halves. */
  #view(from: number, to: number): BoundedOutput {
    if (to - from <= this.bound) {
      return Object.freeze({
        text: decodeUtf8(this.#bytes(from, to)),
        bytes: to - from,
        droppedBytes: 0,
        droppedAt: null,
      });
    }
    const headBytes = this.#bytes(from, from + this.#headLimit);
    const headEnd = from + this.#headLimit - incompleteTailLength(headBytes);
    const tailStart = to - this.#tailLimit;
    const tailFrom = tailStart + leadingContinuationLength(this.#bytes(tailStart, Math.min(tailStart + 3, to)));
    const head = decodeUtf8(headBytes.subarray(0, headEnd - from));
    return Object.freeze({
      text: head + decodeUtf8(this.#bytes(tailFrom, to)),
      bytes: to - from,
      droppedBytes: tailFrom - headEnd,
      droppedAt: head.length,
    });
  }

  /** Positions [from, to) copied out of whichever store holds each part. */
  #bytes(from: number, to: number): Uint8Array {
    const out = new Uint8Array(Math.max(0, to - from));
    let position = from;
    while (position < to) {
      let end: number;
      if (position < this.#head.end) {
        end = Math.min(to, this.#head.end);
        this.#head.copy(position, end, out, position - from);
      } else if (position >= this.#deltaHead.start && position < this.#deltaHead.end) {
        end = Math.min(to, this.#deltaHead.end);
        this.#deltaHead.copy(position, end, out, position - from);
      } else if (position >= this.#tail.start && position < this.#tail.end) {
        end = Math.min(to, this.#tail.end);
        this.#tail.copy(position, end, out, position - from);
      } else {
        throw new Error(`Output position ${position} is not retained.`);
      }
      position = end;
    }
    return out;
  }

  /**
   * A store for the next delta's first half, [cursor, cursor + half), less the part the run's
   * first half holds; seeded with what is already written of it (an incomplete character).
   */
  #newDeltaHead(): BytePrefix {
    const start = Math.max(this.#cursor, this.#headLimit);
    const deltaHead = new BytePrefix(start, this.#cursor + this.#headLimit - start);
    if (this.#total > start) deltaHead.offer(start, this.#bytes(start, this.#total));
    return deltaHead;
  }
}
