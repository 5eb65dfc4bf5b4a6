import type { LineHit } from "./chunk-reader.js";
import { encodeCursor, type SearchCursor } from "./cursor.js";
import { excerpt } from "./excerpt.js";
import type { SearchRequest } from "./request.js";
import type { SearchHit, SearchWorkspacePage } from "./types.js";

interface Placed {
  readonly hit: SearchHit;
  /** Bytes of the hit's JSON. */
  readonly bytes: number;
  /** Where a page that ends before this hit continues. */
  readonly cursor: SearchCursor;
  /** Files scanned up to and including this hit's file. */
  readonly files: number;
}

/** How a walk ended: where the next page starts (undefined at the end) and the files scanned. */
export interface PageEnd {
  readonly cursor: SearchCursor | undefined;
  readonly files: number;
  readonly timedOut: boolean;
}

/**
 * Collects hits into one page that serializes to at most `maxPageBytes` bytes of UTF-8 JSON.
 * Each hit is placed only if the page still fits with a `nextOffset` pointing at that hit
 * (about the size of the one that will end the page); {@link finish} checks the exact size
 * and, when the final `nextOffset` is longer, hands hits back to the next page. A first hit
 * too large for an empty page gets a shorter text; one that cannot fit even with none is
 * left out, and the page continues after its line.
 */
export class PageBuilder {
  private readonly placed: Placed[] = [];
  /** Bytes of the placed hits' JSON, without the commas between them. */
  private hitBytes = 0;
  /** The first hit's line bytes (copied), to shorten its text if the page must. */
  private firstPrefix: Uint8Array | undefined;
  /** Set when a hit did not fit: the page ends there. */
  private stop: { readonly cursor: SearchCursor; readonly files: number } | undefined;

  constructor(
    private readonly request: SearchRequest,
    private readonly maxPageBytes: number,
    private readonly maxLineBytes: number,
  ) {}

  /** Places a hit of the file at `path`; false when the page is full, which ends it there. */
  add(path: string, segments: readonly string[], found: LineHit, files: number): boolean {
    const cursor: SearchCursor = {
      path,
      segments,
      position: { byte: found.lineStart, line: found.line, reported: false },
    };
    const placed = this.make(path, found, this.maxLineBytes, cursor, files);
    if (this.fits(this.hitBytes + placed.bytes, this.placed.length + 1, cursor, files)) {
      if (this.placed.length === 0) this.firstPrefix = found.prefix.slice();
      this.push(placed);
      return true;
    }
    if (this.placed.length > 0) {
      this.stop = { cursor, files };
      return false;
    }
    const shortened = this.shorten(path, found.prefix, cursor, files, cursor);
    if (shortened) {
      this.firstPrefix = found.prefix.slice();
      this.push(shortened);
      return true;
    }
    this.stop = { cursor: afterLine(cursor), files };
    return false;
  }

  /** The page, ending at the hit that did not fit or else at `end`, within `maxPageBytes`. */
  finish(end: PageEnd): SearchWorkspacePage {
    let cursor = this.stop ? this.stop.cursor : end.cursor;
    let files = this.stop ? this.stop.files : end.files;
    for (;;) {
      const page = this.page(cursor, files, end.timedOut);
      if (Buffer.byteLength(JSON.stringify(page)) <= this.maxPageBytes) return page;
      const last = this.placed.pop();
      if (!last) {
        throw new RangeError(
          `maxPageBytes ${this.maxPageBytes} cannot hold even an empty page with the nextOffset for ${JSON.stringify(cursor?.path)}.`,
        );
      }
      this.hitBytes -= last.bytes;
      if (this.placed.length > 0) {
        cursor = last.cursor;
        files = last.files;
        continue;
      }
      // The page's only hit: keep it, with a shorter text, rather than make no progress.
      const shortened = this.shorten(last.hit.path, this.firstPrefix!, last.cursor, last.files, cursor);
      if (shortened) {
        this.push(shortened);
        continue;
      }
      cursor = afterLine(last.cursor);
      files = last.files;
    }
  }

  private page(cursor: SearchCursor | undefined, files: number, timedOut: boolean): SearchWorkspacePage {
    const hits = this.placed.map((placed) => placed.hit);
    if (cursor === undefined) return { hits, filesScanned: files, truncated: false, timedOut };
    return { hits, filesScanned: files, truncated: true, nextOffset: encodeCursor(this.request, cursor), timedOut };
  }

  private push(placed: Placed): void {
    this.placed.push(placed);
    this.hitBytes += placed.bytes;
  }

  private make(path: string, found: LineHit, maxBytes: number, cursor: SearchCursor, files: number): Placed {
    const { text, truncated } = excerpt(found.prefix, maxBytes);
    const hit: SearchHit = truncated
      ? { path, line: found.line, text, textTruncated: true }
      : { path, line: found.line, text };
    return { hit, bytes: Buffer.byteLength(JSON.stringify(hit)), cursor, files };
  }

  /** The hit with the longest text that fits alone on the page with `next` as nextOffset, if any does. */
  private shorten(
    path: string,
    prefix: Uint8Array,
    cursor: SearchCursor,
    files: number,
    next: SearchCursor | undefined,
  ): Placed | undefined {
    const found = { line: cursor.position!.line, lineStart: cursor.position!.byte, prefix };
    let low = 0;
    let high = Math.min(this.maxLineBytes, prefix.length) - 1;
    let best: Placed | undefined;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const placed = this.make(path, found, middle, cursor, files);
      if (this.fits(placed.bytes, 1, next, files)) {
        best = placed;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return best;
  }

  /** Whether `count` hits of `bytes` in all fit with `next` as the nextOffset. */
  private fits(bytes: number, count: number, next: SearchCursor | undefined, files: number): boolean {
    // `timedOut: false` is the longer of the two values.
    const shell: SearchWorkspacePage =
      next === undefined
        ? { hits: [], filesScanned: files, truncated: false, timedOut: false }
        : {
            hits: [],
            filesScanned: files,
            truncated: true,
            nextOffset: encodeCursor(this.request, next),
            timedOut: false,
          };
    return Buffer.byteLength(JSON.stringify(shell)) + bytes + Math.max(count - 1, 0) <= this.maxPageBytes;
  }
}

/** The cursor that continues after the line `cursor` starts at. */
function afterLine(cursor: SearchCursor): SearchCursor {
  return { ...cursor, position: { ...cursor.position!, reported: true } };
}
