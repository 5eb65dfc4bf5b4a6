/** A secret cut in two at the tail's start must still be recognised: this much more is kept before scrubbing. */
const scrubMargin = 65_536;

/**
 * The last bytes of a command's interleaved output, in the order it was read. Keeps a bounded
 * window (the tail plus a margin, so a credential that straddles the cut is still whole when
 * scrubbed), and counts every byte.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte read, kept or not. */
  total = 0;

  constructor(private readonly bytes: number) {}

  push(text: string): void {
    const chunk = Buffer.from(text, "utf8");
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    const limit = this.bytes + scrubMargin;
    while (this.kept > limit && this.chunks.length > 1) {
      this.kept -= (this.chunks.shift() as Buffer).length;
    }
  }

  /** The output scrubbed, then cut to its last `bytes`, with how many bytes were left out before it. */
  read(scrub: (text: string) => string): {
    readonly text: string;
    readonly truncated: boolean;
    readonly droppedBytes: number;
  } {
    const scrubbed = Buffer.from(scrub(Buffer.concat(this.chunks).toString("utf8")), "utf8");
    const dropBefore = this.total - this.kept;
    if (scrubbed.length <= this.bytes && dropBefore === 0) {
      return { text: scrubbed.toString("utf8"), truncated: false, droppedBytes: 0 };
    }
    let start = Math.max(0, scrubbed.length - this.bytes);
    // Start on a character boundary.
    while (start < scrubbed.length && ((scrubbed[start] as number) & 0xc0) === 0x80) start++;
    return {
      text: scrubbed.subarray(start).toString("utf8"),
      truncated: true,
      droppedBytes: dropBefore + start,
    };
  }
}
