// The outside of a patch: its lines, an optional heredoc wrapper, and the `*** Begin Patch` /
// `*** End Patch` markers around the operations. parse.ts reads what is between them.
import { ToolInputError } from "@castellan/harness";
import { quoteLine } from "./quote.js";

/** The first line of a patch (surrounding whitespace allowed). */
export const beginPatchMarker = "*** Begin Patch";

/** The last line of a patch (surrounding whitespace allowed). */
export const endPatchMarker = "*** End Patch";

/**
 * First lines of the heredoc wrapper Codex accepts around a patch (a shell's `apply_patch <<'EOF'`
 * pasted as the argument itself); the wrapper's last line is `EOF`.
 */
const heredocOpeners: ReadonlySet<string> = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);
const heredocCloser = "EOF";

/** A patch's lines and where its operations lie among them. */
export interface PatchBody {
  /**
   * Every line of the patch text: split at LF, with one CR before the LF removed (so a patch
   * sent with CRLF line breaks reads the same). `lines[i]` is line `i + 1` in messages.
   */
  readonly lines: readonly string[];
  /** The index of the first line after `*** Begin Patch`. */
  readonly start: number;
  /** The index of the `*** End Patch` line: operations lie in `[start, end)`. */
  readonly end: number;
}

/** A `patch_invalid` refusal; `message` should name the line and say what to send instead. */
export function invalidPatch(message: string): ToolInputError {
  return new ToolInputError("patch_invalid", message);
}

/** True for a line that is empty or only whitespace. */
export function isBlank(line: string): boolean {
  return line.trim() === "";
}

/** The index of the first line at or after `index` (before `end`) that is not blank, or `end`. */
export function skipBlank(lines: readonly string[], index: number, end: number): number {
  let next = index;
  while (next < end && isBlank(lines[next]!)) next++;
  return next;
}

/**
 * Splits `text` into lines and finds the markers: blank lines before the first marker and after
 * the last are ignored, and so is a heredoc wrapper (`<<EOF`, `<<'EOF'` or `<<"EOF"` as the first
 * line, `EOF` as the last). Throws a `patch_invalid` ToolInputError when there is no text, or the
 * first or last line is not its marker.
 */
export function patchBody(text: string): PatchBody {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  let [first, last] = nonBlankBounds(lines, 0, lines.length);
  if (first > last) {
    throw invalidPatch(
      "The patch is empty. Send `*** Begin Patch`, then one or more `*** Add File:`, `*** Update File:` or `*** Delete File:` sections, then `*** End Patch`.",
    );
  }
  if (lines[first]!.trim() !== beginPatchMarker && isHeredoc(lines, first, last)) {
    [first, last] = nonBlankBounds(lines, first + 1, last);
  }
  const opening = lines[first]!;
  if (first > last || opening.trim() !== beginPatchMarker) {
    const found = first > last ? "nothing inside the heredoc" : quoteLine(opening);
    throw invalidPatch(
      `line ${first + 1}: a patch starts with a \`${beginPatchMarker}\` line, but this is ${found}. Send the patch again starting with \`${beginPatchMarker}\`.`,
    );
  }
  if (last === first || lines[last]!.trim() !== endPatchMarker) {
    throw invalidPatch(
      `line ${last + 1}: a patch ends with an \`${endPatchMarker}\` line, but the last line is ${quoteLine(lines[last]!)}. If the patch was cut short, send all of it again; otherwise add \`${endPatchMarker}\` after the last operation.`,
    );
  }
  return { lines, start: first + 1, end: last };
}

/** The indexes of the first and last non-blank lines in `[from, to)`; `first > last` when all are blank. */
function nonBlankBounds(lines: readonly string[], from: number, to: number): [number, number] {
  const first = skipBlank(lines, from, to);
  let last = to - 1;
  while (last >= first && isBlank(lines[last]!)) last--;
  return [first, last];
}

/** True when the lines `first` and `last` wrap the rest as a heredoc, with at least two lines inside. */
function isHeredoc(lines: readonly string[], first: number, last: number): boolean {
  return last - first >= 3 && heredocOpeners.has(lines[first]!.trim()) && lines[last]!.trim() === heredocCloser;
}
