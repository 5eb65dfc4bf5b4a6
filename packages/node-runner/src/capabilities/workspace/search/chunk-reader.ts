import type { WorkspaceFileHandle } from "../../../platform/paths/operations.js";
import type { LinePosition } from "./cursor.js";
import { binaryProbeBytes, chunkBytes } from "./types.js";

/** A matching line found by a scanner. */
export interface LineHit {
  /** 1-based line number. */
  readonly line: number;
  /** Byte offset of the line's start. */
  readonly lineStart: number;
  /**
   * The line's first bytes, without its LF: the whole line, or at least `maxLineBytes + 1`
   * bytes of a longer one. It may be a view of the scan buffer: valid only during the call.
   */
  readonly prefix: Uint8Array;
}

/** Takes each hit in order; false when the page is full, which ends the scan. */
export type HitSink = (hit: LineHit) => boolean;

/** How a scan of one file ended. */
export type ScanOutcome =
  | { readonly kind: "end" }
  | { readonly kind: "binary" }
  /** The sink refused a hit: the page is full. */
  | { readonly kind: "full" }
  /** Time ran out between chunks; the file continues at `position`. */
  | { readonly kind: "paused"; readonly position: LinePosition };

/** Asked between chunks: throws when the search was aborted, true when its time is up. */
export type PauseCheck = () => boolean;

/** Scans one open file from a line position for hits. */
export interface FileScanner {
  scan(reader: ChunkReader, start: LinePosition, sink: HitSink, pause: PauseCheck): Promise<ScanOutcome>;
}

/**
 * The fixed buffer a file streams through (64 KiB, reused for every file of a search) and
 * the window of the file it holds: bytes `base` to `base + length`. A short read is taken
 * as the end of the file, which holds for regular files.
 */
export class ChunkReader {
  buffer: Buffer = Buffer.allocUnsafe(chunkBytes);
  /** File offset of `buffer[0]`. */
  base = 0;
  /** Bytes of `buffer` that hold file data. */
  length = 0;
  /** True once a read came back short: nothing follows `length`. */
  ended = false;
  private handle: WorkspaceFileHandle | undefined;
  private readonly probe = Buffer.allocUnsafe(binaryProbeBytes);

  private primed = false;

  /** Starts on `handle` at file offset `position`, with an empty window. */
  open(handle: WorkspaceFileHandle, position: number): void {
    this.handle = handle;
    this.base = position;
    this.length = 0;
    this.ended = false;
    this.primed = false;
  }

  /**
   * Starts on `handle` with its first chunk already read (`bytesRead` bytes of `chunk` from
   * file offset `position`): `chunk` becomes the buffer, and the one it replaces is returned
   * for the caller's pool.
   */
  adopt(handle: WorkspaceFileHandle, position: number, chunk: Buffer, bytesRead: number): Buffer {
    const previous = this.buffer;
    this.buffer = chunk;
    this.handle = handle;
    this.base = position;
    this.length = bytesRead;
    this.ended = bytesRead < chunk.length;
    this.primed = true;
    return previous;
  }

  /** Reads the first chunk, unless {@link adopt} brought it. */
  async prime(): Promise<void> {
    if (!this.primed) await this.refill(0);
    this.primed = true;
  }

  /** The window's bytes (a view of the buffer, valid until the next refill). */
  view(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  /**
   * Drops the window's first `drop` bytes, moves the rest to the buffer's start, and reads
   * after them to fill it. The caller leaves room: `length - drop` below the buffer's size.
   */
  async refill(drop: number): Promise<void> {
    if (drop > 0) {
      this.buffer.copyWithin(0, drop, this.length);
      this.length -= drop;
      this.base += drop;
    }
    const wanted = this.buffer.length - this.length;
    if (wanted <= 0) throw new RangeError("ChunkReader.refill: the window is full; drop bytes first.");
    const { bytesRead } = await this.handle!.read(this.buffer, this.length, wanted, this.base + this.length);
    this.length += bytesRead;
    if (bytesRead < wanted) this.ended = true;
  }

  /**
   * True when the file's first {@link binaryProbeBytes} bytes hold a NUL. Call after the
   * first refill: from offset 0 it looks at the window, else it reads the file's start.
   */
  async isBinary(): Promise<boolean> {
    if (this.base === 0) return this.buffer.subarray(0, Math.min(this.length, binaryProbeBytes)).includes(0);
    const { bytesRead } = await this.handle!.read(this.probe, 0, binaryProbeBytes, 0);
    return this.probe.subarray(0, bytesRead).includes(0);
  }
}
