import type { ChunkReader, FileScanner, HitSink, PauseCheck, ScanOutcome } from "./chunk-reader.js";
import type { LinePosition } from "./cursor.js";
import { LinePrefix } from "./line-prefix.js";

const lineFeed = 0x0a;

/**
 * Finds a case-sensitive literal as bytes, search first: `Buffer.indexOf` over the window,
 * and only around a match (or before a refill) are line feeds counted, so a file without a
 * match that fits one window costs one search. A match split between two reads is found:
 * the window keeps the last `needle.length - 1` bytes. A line longer than the window keeps
 * only its first `maxLineBytes + 1` bytes (for the hit's text), never the whole line.
 */
export class LiteralScanner implements FileScanner {
  private readonly needle: Buffer;
  private readonly prefix: LinePrefix;

  /** `query` has no LF and at most 4,096 bytes, so the overlap kept is below half the window. */
  constructor(query: string, maxLineBytes: number) {
    this.needle = Buffer.from(query, "utf8");
    this.prefix = new LinePrefix(maxLineBytes + 1);
  }

  async scan(reader: ChunkReader, start: LinePosition, sink: HitSink, pause: PauseCheck): Promise<ScanOutcome> {
    const { needle, prefix } = this;
    const need = prefix.capacity;
    await reader.prime();
    if (await reader.isBinary()) return { kind: "binary" };
    prefix.clear();
    let line = start.line;
    let lineStart = start.byte;
    // The line at lineStart has a hit (delivered, or `pending` its text's bytes).
    let reported = start.reported;
    let pending = false;
    // Window indexes: line feeds before `counted` are in `line`; no match starts before `searchFrom`.
    let counted = 0;
    let searchFrom = 0;
    const half = reader.buffer.length / 2;
    for (;;) {
      const view = reader.view();
      const base = reader.base;
      const textOf = (end: number): Uint8Array => {
        const index = lineStart - base;
        if (index >= 0) return view.subarray(index, Math.min(end, index + need));
        return prefix.joined(view, end);
      };
      for (;;) {
        if (reported) {
          const lineFeedAt = view.indexOf(lineFeed, searchFrom);
          if (pending) {
            const end = lineFeedAt >= 0 ? lineFeedAt : reader.ended ? view.length : -1;
            const known = lineStart >= base ? view.length - (lineStart - base) : prefix.length + view.length;
            if (end >= 0 || known >= need) {
              pending = false;
              if (!sink({ line, lineStart, prefix: textOf(end >= 0 ? end : view.length) })) return { kind: "full" };
            }
          }
          if (lineFeedAt < 0) {
            searchFrom = view.length;
            break;
          }
          line++;
          lineStart = base + lineFeedAt + 1;
          counted = searchFrom = lineFeedAt + 1;
          reported = false;
          prefix.clear();
          continue;
        }
        const match = view.indexOf(needle, searchFrom);
        if (match < 0) break;
        for (let at = view.indexOf(lineFeed, counted); at >= 0 && at < match; at = view.indexOf(lineFeed, at + 1)) {
          line++;
          lineStart = base + at + 1;
          prefix.clear();
        }
        counted = searchFrom = match;
        reported = true;
        pending = true;
      }
      if (reader.ended) return { kind: "end" };
      // A hit still waiting for its text must get it from the next window first; and a pause
      // before the first line ends would hand the next call the same start again.
      if (!pending && lineStart > start.byte && pause()) {
        return { kind: "paused", position: { byte: lineStart, line, reported } };
      }
      if (!reported) {
        for (let at = view.indexOf(lineFeed, counted); at >= 0; at = view.indexOf(lineFeed, at + 1)) {
          line++;
          lineStart = base + at + 1;
          prefix.clear();
        }
      }
      const index = lineStart - base;
      // Where a match could still start: the last needle.length - 1 bytes, within this line.
      const tail = reported ? view.length : Math.max(searchFrom, view.length - needle.length + 1, index, 0);
      let drop = tail;
      if (index >= 0 && view.length - index <= half) {
        // A short line stays whole in the window: cheaper than copying its start aside.
        drop = index;
      } else if (!reported || pending) {
        prefix.extend(view, Math.max(index, 0), tail);
      }
      await reader.refill(drop);
      counted = view.length - drop;
      searchFrom = tail - drop;
    }
  }
}
