// A deliberately small reading of markdown: only as much of CommonMark as it takes to tell the
// text a host renders (prose) from the text it shows literally (code, autolinks). Where it and a
// full parser could disagree, it leans to calling a line a fence: numbered steps with an
// indented fenced block are what agents write most, and escaping inside them garbles the code.

/** One stretch of a markdown document, as far as making it inert is concerned. */
export type MarkdownPiece =
  /** Text the host renders; `lineStart` says whether it begins a line. */
  | { readonly kind: "prose"; readonly text: string; readonly lineStart: boolean }
  /** A fenced block (whole lines, fences included) or a code span (backticks included). */
  | { readonly kind: "code"; readonly text: string }
  /** An `<https://…>` autolink, angle brackets included. */
  | { readonly kind: "autolink"; readonly text: string };

/** One line of a document (its `\n` kept), and whether it belongs to a fenced code block. */
export interface MarkdownLine {
  readonly text: string;
  readonly code: boolean;
}

// Blockquote and list markers in front of a fence: a fence inside a list item or a quote is
// still a fence.
const containerPrefix = /^(?:[ \t]*(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t])))*[ \t]*/;
const fenceOpening = /^(`{3,}|~{3,})(.*)$/;
const fenceClosing = /^(`{3,}|~{3,})[ \t]*$/;
// A line that ends a paragraph, so a code span cannot reach past it.
const blockStart = /[ \t]*(?:\n|$)| {0,3}(?:#{1,6}(?:[ \t]|\n|$)|>|[-*+][ \t]|\d{1,9}[.)][ \t])/y;
const autolink = /<https?:\/\/[^\s<>]*>/y;

/**
 * The lines of `markdown`, each marked as fenced code or not, and the line that would close the
 * block the text ends inside (its quote markers kept; undefined when the text ends outside a
 * block). An unclosed fence runs to the end, as in CommonMark.
 */
export function classifyLines(markdown: string): { readonly lines: MarkdownLine[]; readonly openFence?: string } {
  const lines: MarkdownLine[] = [];
  let fence: string | undefined;
  let fenceRun = "";
  for (const text of markdown.split(/(?<=\n)/)) {
    if (text === "") continue;
    const rest = text.replace(/\n$/, "").replace(containerPrefix, "");
    if (fence === undefined) {
      const opening = fenceOpening.exec(rest);
      // A backtick fence's info string cannot hold a backtick (that line is inline code).
      if (opening?.[1] !== undefined && !(opening[1].startsWith("`") && opening[2]?.includes("`"))) {
        // The closing fence keeps the opening's quote markers; list markers become their width.
        const prefix = containerPrefix.exec(text)?.[0] ?? "";
        fence = prefix.replace(/[-*+]|\d{1,9}[.)]/g, (marker) => " ".repeat(marker.length)) + opening[1];
        fenceRun = opening[1];
        lines.push({ text, code: true });
      } else {
        lines.push({ text, code: false });
      }
    } else {
      const closing = fenceClosing.exec(rest)?.[1];
      if (closing !== undefined && closing[0] === fenceRun[0] && closing.length >= fenceRun.length) fence = undefined;
      lines.push({ text, code: true });
    }
  }
  return fence === undefined ? { lines } : { lines, openFence: fence };
}

/** `markdown` cut into prose, code and autolink pieces that join back to exactly `markdown`. */
export function splitMarkdown(markdown: string): MarkdownPiece[] {
  const pieces: MarkdownPiece[] = [];
  let run = "";
  let code = false;
  const flush = () => {
    if (run === "") return;
    if (code) pieces.push({ kind: "code", text: run });
    else splitInline(run, pieces);
    run = "";
  };
  for (const line of classifyLines(markdown).lines) {
    if (line.code !== code) flush();
    code = line.code;
    run += line.text;
  }
  flush();
  return pieces;
}

/** Splits a run of whole non-fenced lines at its code spans and autolinks. */
function splitInline(run: string, pieces: MarkdownPiece[]): void {
  let start = 0;
  let index = 0;
  const flush = (end: number) => {
    if (end > start) {
      pieces.push({ kind: "prose", text: run.slice(start, end), lineStart: start === 0 || run[start - 1] === "\n" });
    }
  };
  while (index < run.length) {
    const char = run[index];
    if (char === "\\") {
      // An escaped character opens neither a span nor an autolink.
      index += 2;
    } else if (char === "`") {
      const length = runLength(run, index);
      const close = closingRun(run, index + length, length);
      if (close === undefined) {
        index += length;
      } else {
        flush(index);
        pieces.push({ kind: "code", text: run.slice(index, close + length) });
        index = start = close + length;
      }
    } else if (char === "<") {
      autolink.lastIndex = index;
      const link = autolink.exec(run)?.[0];
      if (link === undefined) {
        index += 1;
      } else {
        flush(index);
        pieces.push({ kind: "autolink", text: link });
        index = start = index + link.length;
      }
    } else {
      index += 1;
    }
  }
  flush(run.length);
}

function runLength(text: string, index: number): number {
  let end = index;
  while (text[end] === "`") end += 1;
  return end - index;
}

/** Where the backtick run of exactly `length` that closes a span starts, within its paragraph. */
function closingRun(text: string, from: number, length: number): number | undefined {
  let index = from;
  while (index < text.length) {
    const char = text[index];
    if (char === "`") {
      const found = runLength(text, index);
      if (found === length) return index;
      index += found;
    } else {
      if (char === "\n") {
        blockStart.lastIndex = index + 1;
        if (blockStart.test(text)) return undefined;
      }
      index += 1;
    }
  }
  return undefined;
}
