import type { ChunkReader, FileScanner, HitSink, PauseCheck, ScanOutcome } from "./chunk-reader.js";
import type { LinePosition } from "./cursor.js";
import { LinePrefix } from "./line-prefix.js";

const lineFeed = 0x0a;

/** Tells which lines match, for the line-first scanner. */
export interface LineTester {
  /** The indexes of `lines` that match, ascending. */
  matching(lines: readonly string[]): number[] | Promise<number[]>;
  /** False when no line of `text` (whole lines joined by LF) can match: a cheap filter. Absent: always ask. */
  mayMatch?(text: string): boolean;
  /** Tests one line too long for the window, given piece by piece. */
  longLine(): LongLineTester;
}

/** A {@link LineTester}'s test of one long line. */
export interface LongLineTester {
  /** Takes the next piece of the line; true once the line is known to match (no more pieces are given). */
  add(piece: string): boolean | Promise<boolean>;
  /** The line ended (after pieces that did not match): true when it matches. */
  end(): boolean | Promise<boolean>;
}

type Mode = "lines" | "skip" | "long";

/**
 * Scans line first, for matchers that need a line's text (case-insensitive literals,
 * regular expressions): the whole lines in the window are decoded at once (a multi-byte
 * character never spans a line feed) and tested in one batch; a line longer than the window
 * streams through the tester in pieces, keeping only its first `maxLineBytes + 1` bytes.
 */
export class LineScanner implements FileScanner {
  private readonly prefix: LinePrefix;

  constructor(
    private readonly tester: LineTester,
    maxLineBytes: number,
  ) {
    this.prefix = new LinePrefix(maxLineBytes + 1);
  }

  async scan(reader: ChunkReader, start: LinePosition, sink: HitSink, pause: PauseCheck): Promise<ScanOutcome> {
    const { tester, prefix } = this;
    await reader.prime();
    if (await reader.isBinary()) return { kind: "binary" };
    let line = start.line;
    let lineStart = start.byte;
    let mode: Mode = start.reported ? "skip" : "lines";
    // The long line being streamed.
    let long: LongLineTester | undefined;
    let decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    let matched = false;
    let delivered = false;
    for (;;) {
      const view = reader.view();
      const base = reader.base;
      let drop = view.length;
      if (mode === "skip" || mode === "long") {
        const lineFeedAt = view.indexOf(lineFeed, Math.max(lineStart - base, 0));
        const ends = lineFeedAt >= 0 || reader.ended;
        if (mode === "long") {
          const end = lineFeedAt >= 0 ? lineFeedAt : view.length;
          prefix.extend(view, 0, end);
          if (!matched) {
            matched = await long!.add(decoder.decode(view.subarray(0, end), { stream: !ends }));
            if (!matched && ends) matched = await long!.end();
          }
          if (matched && !delivered && (ends || prefix.full)) {
            delivered = true;
            if (!sink({ line, lineStart, prefix: prefix.joined(view, 0) })) return { kind: "full" };
          }
        }
        if (lineFeedAt >= 0) {
          line++;
          lineStart = base + lineFeedAt + 1;
          mode = "lines";
        }
      }
      if (mode === "lines") {
        const outcome = await this.wholeLines(view, base, line, lineStart, sink);
        if (outcome === "full") return { kind: "full" };
        line = outcome.line;
        lineStart = outcome.lineStart;
        const index = lineStart - base;
        if (reader.ended) {
          if (index < view.length && !(await this.lastLine(view, index, line, lineStart, sink)))
            return { kind: "full" };
          return { kind: "end" };
        }
        if (index > 0) {
          drop = index;
        } else {
          // The window is one line with no end in sight: stream it from here.
          mode = "long";
          long = tester.longLine();
          decoder = new TextDecoder("utf-8", { ignoreBOM: true });
          prefix.clear();
          matched = false;
          delivered = false;
          continue;
        }
      } else if (reader.ended) {
        return { kind: "end" };
      }
      // Pausing inside a matched long line waiting for its text would lose the hit; and a
      // pause before the first line ends would hand the next call the same start again.
      const waiting = mode === "long" && matched && !delivered;
      if (!waiting && lineStart > start.byte && pause()) {
        return { kind: "paused", position: { byte: lineStart, line, reported: mode === "skip" || delivered } };
      }
      await reader.refill(drop);
    }
  }

  /** Tests the whole lines from `lineStart` to the window's last line feed; where the next line starts. */
  private async wholeLines(
    view: Buffer,
    base: number,
    line: number,
    lineStart: number,
    sink: HitSink,
  ): Promise<{ line: number; lineStart: number } | "full"> {
    const from = lineStart - base;
    const last = view.lastIndexOf(lineFeed);
    if (last < from) return { line, lineStart };
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(view.subarray(from, last));
    const lines = text.split("\n");
    if (this.tester.mayMatch?.(text) !== false) {
      const matches = await this.tester.matching(lines);
      // Byte starts are found only for matching lines, walking forward from the last one.
      let at = from;
      let atIndex = 0;
      for (const index of matches) {
        for (; atIndex < index; atIndex++) at = view.indexOf(lineFeed, at) + 1;
        const end = view.indexOf(lineFeed, at);
        const hit = {
          line: line + index,
          lineStart: base + at,
          prefix: view.subarray(at, Math.min(end, at + this.prefix.capacity)),
        };
        if (!sink(hit)) return "full";
      }
    }
    return { line: line + lines.length, lineStart: base + last + 1 };
  }

  /** The file's last line, with no line feed after it; false when the page is full. */
  private async lastLine(
    view: Buffer,
    index: number,
    line: number,
    lineStart: number,
    sink: HitSink,
  ): Promise<boolean> {
    const bytes = view.subarray(index);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    if (this.tester.mayMatch?.(text) === false) return true;
    if ((await this.tester.matching([text])).length === 0) return true;
    return sink({ line, lineStart, prefix: bytes.subarray(0, this.prefix.capacity) });
  }
}
