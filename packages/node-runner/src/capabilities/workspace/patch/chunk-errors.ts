// The refusals of apply-chunks.ts, worded for the model: which chunk, what was looked for and
// where, and what to send instead. Line numbers are 1-based; messages stay small whatever the
// file or patch holds (quote.ts bounds them).
import { ToolInputError } from "@castellan/harness";
import { endOfFileMarker } from "./parse-chunks.js";
import { quoteLine, quoteLines } from "./quote.js";
import type { MatchLevel } from "./seek.js";
import type { PatchChunk } from "./types.js";

/** Which chunk failed, for the start of a message. */
export interface ChunkPlace {
  /** The file, as the caller names it; `the file` when it gave no name. */
  readonly label: string;
  readonly chunk: PatchChunk;
  /** The chunk's 0-based position among the Update's chunks. */
  readonly index: number;
  /** How many chunks the Update has. */
  readonly total: number;
}

/** What was looked for: one `@@` line, or the chunk's context and removed lines. */
export type Sought = { readonly anchor: string } | { readonly lines: readonly string[] };

/** Where the search ran: from line index `from` (0-based), or only at the end of the file. */
export interface SearchSpan {
  readonly from: number;
  readonly atEnd: boolean;
}

const levelNotes: Readonly<Record<MatchLevel, string>> = {
  exact: "",
  "trailing-whitespace": " (comparing with trailing whitespace ignored)",
  trimmed: " (comparing with surrounding whitespace ignored)",
  punctuation: " (comparing with whitespace and typographic punctuation ignored)",
};

/**
 * `context_not_found`: no level of the ladder found `sought`. `elsewhere`, when given, is a
 * 0-based line where it does occur outside the searched span (before it, or not at the end).
 */
export function contextNotFound(
  place: ChunkPlace,
  sought: Sought,
  span: SearchSpan,
  elsewhere: number | undefined,
): ToolInputError {
  const where = span.atEnd
    ? `at the end of the file (the chunk ends with \`${endOfFileMarker}\`)`
    : span.from === 0
      ? "in the file"
      : `after line ${span.from}`;
  const ignored = "even with whitespace and typographic punctuation differences ignored";
  const anchored = "anchor" in sought;
  const head = anchored
    ? `its \`@@\` line ${quoteLine(sought.anchor)} was not found ${where}, ${ignored}.`
    : `these lines (its context and \`-\` lines) were not found ${where}, ${ignored}:\n${quoteLines(sought.lines)}\n`;
  const parts: string[] = [];
  if (elsewhere !== undefined) {
    const subject = anchored ? "It occurs" : "They occur";
    parts.push(
      span.atEnd
        ? `${subject} at line ${elsewhere + 1}, which does not end the file: leave out \`${endOfFileMarker}\`, or add the lines that follow.`
        : `${subject} at line ${elsewhere + 1}, before where this chunk is looked for: put chunks in file order, without overlaps.`,
    );
  }
  parts.push(
    anchored
      ? "Read the file again and copy the line as it is now, or leave the `@@` line out."
      : "Read the file again and copy the lines as they are now.",
  );
  const tail = parts.join(" ");
  return new ToolInputError("context_not_found", `${prefix(place)}: ${head}${anchored ? " " : ""}${tail}`);
}

/** `context_ambiguous`: `sought` matches `count` places at `level`, the first of them at `starts` (0-based). */
export function contextAmbiguous(
  place: ChunkPlace,
  sought: Sought,
  from: number,
  found: { readonly level: MatchLevel; readonly count: number; readonly starts: readonly number[] },
): ToolInputError {
  const where = from === 0 ? "in the file" : `after line ${from}`;
  const lines = found.starts.map((start) => start + 1).join(", ");
  const more = found.count > found.starts.length ? ", …" : "";
  const at = `${where}${levelNotes[found.level]}, at lines ${lines}${more}`;
  const message =
    "anchor" in sought
      ? `its \`@@\` line ${quoteLine(sought.anchor)} occurs ${found.count} times ${at}. Use a line that occurs once, or put an \`@@\` line for the enclosing section before it.`
      : `its context and \`-\` lines occur ${found.count} times ${at}. Add unchanged context lines around the change, or an \`@@\` line naming the enclosing function or section, so that they occur once.`;
  return new ToolInputError("context_ambiguous", `${prefix(place)}: ${message}`);
}

/** `no_change`: every chunk matched, but none changes the file. */
export function noChange(label: string, total: number): ToolInputError {
  const which = total === 1 ? "its one chunk changes nothing" : `none of its ${total} chunks changes anything`;
  return new ToolInputError(
    "no_change",
    `${label}: the update would leave the file as it is (${which}: context lines only, or \`+\` lines equal to the lines they replace). Add \`-\` and \`+\` lines for the change, or leave the file out of the patch.`,
  );
}

function prefix(place: ChunkPlace): string {
  return `${place.label}: chunk ${place.index + 1} of ${place.total} (patch line ${place.chunk.line})`;
}
