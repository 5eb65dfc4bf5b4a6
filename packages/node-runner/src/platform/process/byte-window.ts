// The two kinds of byte store an output capture is made of. Positions are absolute byte
// offsets in the stream; each store keeps one window of it and grows its buffer only as bytes
// arrive, so a quiet command costs almost nothing and a loud one never more than the window.

/** Smallest buffer allocated, so a trickle of output does not reallocate on every chunk. */
const minimumCapacity = 256;

function capacityFor(needed: number, current: number, limit: number): number {
  return Math.min(limit, Math.max(needed, current * 2, minimumCapacity));
}

/**
 * Keeps the first `limit` bytes of the stream from position `start` on; later bytes are not
 * kept. Bytes must be offered in stream order, without gaps.
 */
export class BytePrefix {
  /** Where the window begins. */
  readonly start: number;
  /** How many bytes it keeps at most. */
  readonly limit: number;
  #buffer = new Uint8Array(0);
  #length = 0;

  constructor(start: number, limit: number) {
    this.start = start;
    this.limit = Math.max(0, limit);
  }

  /** The position after the last byte kept. */
  get end(): number {
    return this.start + this.#length;
  }

  /** Bytes allocated now (never more than `limit`). */
  get retainedBytes(): number {
    return this.#buffer.length;
  }

  /** Keeps whatever part of `bytes` (which begin at `position`) falls in the window. */
  offer(position: number, bytes: Uint8Array): void {
    const from = Math.max(this.end, position);
    const to = Math.min(this.start + this.limit, position + bytes.length);
    if (to <= from) return;
    if (position > this.end)
      throw new Error(`Output bytes were skipped: expected position ${this.end}, got ${position}.`);
    const length = to - this.start;
    if (length > this.#buffer.length) {
      const grown = new Uint8Array(capacityFor(length, this.#buffer.length, this.limit));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(bytes.subarray(from - position, to - position), from - this.start);
    this.#length = length;
  }

  /** Copies positions [from, to), which must be kept here, into `target` at `offset`. */
  copy(from: number, to: number, target: Uint8Array, offset: number): void {
    target.set(this.#buffer.subarray(from - this.start, to - this.start), offset);
  }

  /** Frees the buffer; nothing is kept afterwards. */
  release(): void {
    this.#buffer = new Uint8Array(0);
    this.#length = 0;
  }
}

/**
 * Keeps the last `limit` bytes of the stream from position `start` on, overwriting the oldest.
 * Bytes must be offered in stream order, without gaps.
 */
export class ByteRing {
  /** How many bytes it keeps at most. */
  readonly limit: number;
  #buffer = new Uint8Array(0);
  /** Index in the buffer of the oldest byte kept. */
  #first = 0;
  #length = 0;
  #end: number;

  constructor(start: number, limit: number) {
    this.#end = start;
    this.limit = limit;
  }

  /** The position of the oldest byte kept. */
  get start(): number {
    return this.#end - this.#length;
  }

  /** The position after the newest byte. */
  get end(): number {
    return this.#end;
  }

  /** Bytes allocated now (never more than `limit`). */
  get retainedBytes(): number {
    return this.#buffer.length;
  }

  /** Appends the part of `bytes` (which begin at `position`) past the newest byte kept. */
  offer(position: number, bytes: Uint8Array): void {
    if (position > this.#end)
      throw new Error(`Output bytes were skipped: expected position ${this.#end}, got ${position}.`);
    const skip = this.#end - position;
    if (skip >= bytes.length) return;
    this.#append(bytes.subarray(skip));
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length >= this.limit) {
      // Only the chunk's own last bytes survive: nothing older needs copying.
      if (this.#buffer.length < this.limit) this.#buffer = new Uint8Array(this.limit);
      this.#buffer.set(bytes.subarray(bytes.length - this.limit));
      this.#first = 0;
      this.#length = this.limit;
      this.#end += bytes.length;
      return;
    }
    const needed = this.#length + bytes.length;
    if (needed > this.#buffer.length && this.#buffer.length < this.limit) {
      const grown = new Uint8Array(capacityFor(needed, this.#buffer.length, this.limit));
      this.copy(this.start, this.#end, grown, 0);
      this.#buffer = grown;
      this.#first = 0;
    }
    const capacity = this.#buffer.length;
    const at = (this.#first + this.#length) % capacity;
    const before = Math.min(bytes.length, capacity - at);
    this.#buffer.set(bytes.subarray(0, before), at);
    this.#buffer.set(bytes.subarray(before), 0);
    if (needed > capacity) {
      this.#first = (this.#first + needed - capacity) % capacity;
      this.#length = capacity;
    } else {
      this.#length = needed;
    }
    this.#end += bytes.length;
  }

  /** Copies positions [from, to), which must be kept here, into `target` at `offset`. */
  copy(from: number, to: number, target: Uint8Array, offset: number): void {
    if (to <= from) return;
    const capacity = this.#buffer.length;
    const at = (this.#first + (from - this.start)) % capacity;
    const length = to - from;
    const before = Math.min(length, capacity - at);
    target.set(this.#buffer.subarray(at, at + before), offset);
    if (before < length) target.set(this.#buffer.subarray(0, length - before), offset + before);
  }

  /** Frees the buffer; nothing is kept afterwards. */
  release(): void {
    this.#buffer = new Uint8Array(0);
    this.#first = 0;
    this.#length = 0;
  }
}
