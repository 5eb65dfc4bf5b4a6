// An Update's chunks applied to a file's text, in memory. Lines are LF-delimited; a CR before
// the LF is part of the line, so the bytes of every line the chunks do not remove stay as they
// were, context lines included (Codex rewrites a context line to the patch's spelling of it;
// here a context line matched loosely keeps the file's indentation, CR and punctuation).
import { type ChunkPlace, contextAmbiguous, contextNotFound, noChange, type Sought } from "./chunk-errors.js";
import { LineSeeker } from "./seek.js";
import type { ChunkLine, PatchChunk } from "./types.js";

/** The outcome of {@link applyChunks}. */
export interface AppliedChunks {
  /** The new file text: ends with LF (CRLF in a CRLF file), unless no line is left, then `""`. */
  readonly text: string;
  /** How many chunks change the file's lines; context-only chunks are not counted. At least 1. */
  readonly edits: number;
}

/** Options of {@link applyChunks}. */
export interface ApplyChunksOptions {
  /** How messages name the file (for example its workspace path); default `the file`. */
  readonly path?: string;
}

/** Where one chunk's replacement goes: `removed` original lines from `start` give way to `lines`. */
interface Placement {
  readonly start: number;
  readonly removed: number;
  readonly lines: readonly string[];
}

/**
 * Applies an Update's chunks (at least one) to `original`, the file's whole text, and returns
 * the new text and how many chunks change it. Pure; time linear in the file's lines for each
 * chunk, plus the chunk.
 *
 * Each chunk is found after the previous one's match, so chunks go in file order and do not
 * overlap: first each `@@` line, one below the other, then the chunk's context and removed
 * lines, below the last `@@` line. Each is searched by the ladder of seek.ts (exact, trailing
 * whitespace ignored, trimmed, punctuation folded) and must match once at the first level that
 * matches at all. A chunk ending with `*** End of File` must match the file's last lines. A
 * chunk whose lines end with empty context lines that are not found is looked for once more
 * without them (they were likely the blank line a model writes before the next section).
 *
 * A chunk of only `+` lines is put at the end of the file, whatever its order among the chunks,
 * unless it has an `@@` line (and no `*** End of File`): then its lines go right below that line.
 * Added lines end like the file's first line (CRLF in a CRLF file); a file whose last line had
 * no line ending gets one.
 *
 * Throws a ToolInputError: `context_not_found` (an `@@` line or a chunk's lines are not in the
 * file, after the previous chunk), `context_ambiguous` (they match more than one place; the
 * message gives the count and the first five line numbers), `no_change` (every chunk matched
 * but none changes a line).
 */
export function applyChunks(
  original: string,
  chunks: readonly PatchChunk[],
  options: ApplyChunksOptions = {},
): AppliedChunks {
  const file = fileLines(original);
  const seeker = new LineSeeker(file.lines);
  const label = options.path ?? "the file";
  const placements: Placement[] = [];
  const appended: string[] = [];
  const added = (line: ChunkLine) => line.text + file.ending;
  let cursor = 0;
  let edits = 0;
  for (const [index, chunk] of chunks.entries()) {
    const place: ChunkPlace = { label, chunk, index, total: chunks.length };
    let from = cursor;
    for (const anchor of chunk.anchors) from = find(seeker, place, { anchor }, from, false) + 1;
    if (!chunk.lines.some((line) => line.type !== "added")) {
      edits++;
      if (chunk.anchors.length > 0 && !chunk.endOfFile) {
        placements.push({ start: from, removed: 0, lines: chunk.lines.map(added) });
        cursor = from;
      } else {
        // Lands after every other chunk's lines; the cursor stays, so later chunks still match above it.
        for (const line of chunk.lines) appended.push(added(line));
      }
      continue;
    }
    const { start, lines } = findLines(seeker, place, from);
    const replacement: string[] = [];
    let position = start;
    for (const line of lines) {
      if (line.type === "added") replacement.push(added(line));
      else if (line.type === "context") replacement.push(file.lines[position++]!);
      else position++;
    }
    const removed = position - start;
    if (!sameLines(replacement, file.lines, start, removed)) edits++;
    placements.push({ start, removed, lines: replacement });
    cursor = position;
  }
  if (edits === 0) throw noChange(label, chunks.length);
  const result: string[] = [];
  let copied = 0;
  for (const placement of placements) {
    for (; copied < placement.start; copied++) result.push(file.lines[copied]!);
    // Loops, not push(...lines): spreading a long array overflows the stack.
    for (const line of placement.lines) result.push(line);
    copied = placement.start + placement.removed;
  }
  for (; copied < file.lines.length; copied++) result.push(file.lines[copied]!);
  for (const line of appended) result.push(line);
  return { text: result.length === 0 ? "" : `${result.join("\n")}\n`, edits };
}

/**
 * A file's lines, split at LF (a final LF ends the last line rather than starting an empty
 * one), and what a new line ends with before its LF: `\r` when the file's first line ends with
 * CRLF, else nothing. An unterminated last line of a CRLF file is given its CR here, as it will
 * be given an LF.
 */
function fileLines(text: string): { lines: string[]; ending: "" | "\r" } {
  const lines = text.split("\n");
  const terminated = lines.at(-1) === "";
  if (terminated) lines.pop();
  const firstBreak = text.indexOf("\n");
  const ending = firstBreak > 0 && text[firstBreak - 1] === "\r" ? "\r" : "";
  const last = lines.at(-1);
  // Matching ignores a final CR at every level, so adding it here moves no match.
  if (!terminated && ending === "\r" && last !== undefined && !last.endsWith("\r"))
    lines[lines.length - 1] = `${last}\r`;
  return { lines, ending };
}

/**
 * The start of the one place `sought` matches at or after `from` (only at the end with `atEnd`);
 * throws `context_ambiguous` when it matches several, `context_not_found` when none.
 */
function find(seeker: LineSeeker, place: ChunkPlace, sought: Sought, from: number, atEnd: boolean): number {
  const pattern = "anchor" in sought ? [sought.anchor] : sought.lines;
  const found = seeker.seek(pattern, { from, atEnd });
  if (found.type === "found") return found.start;
  if (found.type === "ambiguous") throw contextAmbiguous(place, sought, from, found);
  // Looking again over the whole file tells the model whether the lines exist but sit out of reach.
  const anywhere = from > 0 || atEnd ? seeker.seek(pattern, { from: 0 }) : undefined;
  const elsewhere = anywhere === undefined || anywhere.type === "missing" ? undefined : firstStart(anywhere);
  throw contextNotFound(place, sought, { from, atEnd }, elsewhere);
}

/**
 * Where the chunk's context and removed lines match (at or after `from`), with the chunk lines
 * that matched: all of them, or all but trailing empty context lines when only that matches.
 */
function findLines(
  seeker: LineSeeker,
  place: ChunkPlace,
  from: number,
): { start: number; lines: readonly ChunkLine[] } {
  const { chunk } = place;
  const atEnd = chunk.endOfFile;
  const whole = sought(chunk.lines);
  let kept = chunk.lines.length;
  while (kept > 0 && isEmptyContext(chunk.lines[kept - 1]!)) kept--;
  const shorter = chunk.lines.slice(0, kept);
  const retry = sought(shorter);
  if (
    kept < chunk.lines.length &&
    retry.lines.length > 0 &&
    seeker.seek(whole.lines, { from, atEnd }).type === "missing"
  ) {
    if (seeker.seek(retry.lines, { from, atEnd }).type !== "missing") {
      return { start: find(seeker, place, retry, from, atEnd), lines: shorter };
    }
  }
  return { start: find(seeker, place, whole, from, atEnd), lines: chunk.lines };
}

/** The lines a chunk looks for: its context and removed lines, in order. */
function sought(lines: readonly ChunkLine[]): { lines: string[] } {
  return { lines: lines.filter((line) => line.type !== "added").map((line) => line.text) };
}

function isEmptyContext(line: ChunkLine): boolean {
  return line.type === "context" && line.text.trim() === "";
}

function firstStart(
  found: { type: "found"; start: number } | { type: "ambiguous"; starts: readonly number[] },
): number {
  return found.type === "found" ? found.start : found.starts[0]!;
}

/** True when `replacement` equals the `count` lines of `lines` from `start`. */
function sameLines(replacement: readonly string[], lines: readonly string[], start: number, count: number): boolean {
  if (replacement.length !== count) return false;
  return replacement.every((line, offset) => line === lines[start + offset]);
}
