// Finding a run of lines (a chunk's context and removed lines, or one `@@` line) in a file's
// lines, by Codex's ladder of ever looser comparisons. Unlike Codex, which takes the first
// match, the match must be unique at the first level that finds any: a patch must not land on
// whichever of two look-alike places comes first.
//
// Each level compares lines by a key; every distinct key is given a number once per file and
// level, and the search is Knuth-Morris-Pratt over those numbers, so a search costs time linear
// in the lines searched plus the pattern, whatever the content, and no input becomes a regex.

/**
 * The ladder, strictest first:
 * - `exact`: equal text, except that a final CR of a file line is not compared: it belongs to
 *   the line's CRLF ending, and patch lines never carry one (parsing drops it), so CRLF files
 *   match at this level like LF files do;
 * - `trailing-whitespace`: equal once trailing whitespace (CR included) is removed from both;
 * - `trimmed`: equal once leading and trailing whitespace is removed from both;
 * - `punctuation`: equal once trimmed and typographic punctuation folded to ASCII
 *   ({@link foldPunctuation}).
 */
export type MatchLevel = "exact" | "trailing-whitespace" | "trimmed" | "punctuation";

/** The levels in the order they are tried. */
export const matchLevels: readonly MatchLevel[] = ["exact", "trailing-whitespace", "trimmed", "punctuation"];

/** How many match starts an ambiguous result lists (its count covers all of them). */
export const shownMatchStarts = 5;

// The characters Codex folds (codex-rs/apply-patch/src/seek_sequence.rs), each to one ASCII character.
const folds = new Map<string, string>();
for (const dash of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212") folds.set(dash, "-");
for (const quote of "\u2018\u2019\u201A\u201B") folds.set(quote, "'");
for (const quote of "\u201C\u201D\u201E\u201F") folds.set(quote, '"');
for (const space of "\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000") {
  folds.set(space, " ");
}

/**
 * `text` with typographic dashes and the minus sign folded to `-`, curly single quotes to `'`,
 * curly double quotes to `"`, and non-breaking and other fixed-width spaces to a space.
 */
export function foldPunctuation(text: string): string {
  let folded = "";
  let copied = 0;
  for (let index = 0; index < text.length; index++) {
    const replacement = folds.get(text[index]!);
    if (replacement === undefined) continue;
    folded += text.slice(copied, index) + replacement;
    copied = index + 1;
  }
  return copied === 0 ? text : folded + text.slice(copied);
}

/** The key `line` is compared by at `level`. */
export function lineKey(line: string, level: MatchLevel): string {
  switch (level) {
    case "exact":
      return line.endsWith("\r") ? line.slice(0, -1) : line;
    case "trailing-whitespace":
      return line.trimEnd();
    case "trimmed":
      return line.trim();
    case "punctuation":
      return foldPunctuation(line.trim());
  }
}

/** Where a run of lines was found, or why it was not. Line indexes are 0-based. */
export type SeekResult =
  | { readonly type: "found"; readonly start: number; readonly level: MatchLevel }
  | {
      readonly type: "ambiguous";
      /** The first level that matched. */
      readonly level: MatchLevel;
      /** How many places match at that level (overlapping places counted). */
      readonly count: number;
      /** The first {@link shownMatchStarts} of them. */
      readonly starts: readonly number[];
    }
  | { readonly type: "missing" };

/** Where {@link LineSeeker.seek} looks. */
export interface SeekOptions {
  /** The first line index a match may start at (0 for the whole file); at most the line count. */
  readonly from: number;
  /** Only a match ending at the last line counts (`*** End of File`). Default false. */
  readonly atEnd?: boolean;
}

/** A file's lines, ready to be searched again and again (each level's keys are made once, when first needed). */
export class LineSeeker {
  readonly #lines: readonly string[];
  readonly #levels = new Map<MatchLevel, { ids: Int32Array; idOf: Map<string, number> }>();

  /** `lines`: the file's lines, each without its LF (a CRLF line keeps its CR). */
  constructor(lines: readonly string[]) {
    this.#lines = lines;
  }

  /**
   * Finds `pattern` (at least one line) in the file's lines at or after `options.from`: tries
   * each level in turn and answers at the first that matches anywhere: `found` when it matches
   * once, `ambiguous` when more often. `missing` when no level matches.
   */
  seek(pattern: readonly string[], options: SeekOptions): SeekResult {
    const lineCount = this.#lines.length;
    const atEnd = options.atEnd ?? false;
    if (pattern.length === 0) throw new RangeError("LineSeeker.seek: the pattern has no lines.");
    if (pattern.length > lineCount - options.from) return { type: "missing" };
    for (const level of matchLevels) {
      const { ids, idOf } = this.#keys(level);
      const wanted = Int32Array.from(pattern, (line) => idOf.get(lineKey(line, level)) ?? -1);
      if (wanted.includes(-1)) continue;
      if (atEnd) {
        const start = lineCount - wanted.length;
        if (wanted.every((id, offset) => ids[start + offset] === id)) return { type: "found", start, level };
        continue;
      }
      const { count, starts } = occurrences(ids, options.from, wanted);
      if (count === 1) return { type: "found", start: starts[0]!, level };
      if (count > 1) return { type: "ambiguous", level, count, starts };
    }
    return { type: "missing" };
  }

  #keys(level: MatchLevel): { ids: Int32Array; idOf: Map<string, number> } {
    let keys = this.#levels.get(level);
    if (!keys) {
      const idOf = new Map<string, number>();
      const ids = Int32Array.from(this.#lines, (line) => {
        const key = lineKey(line, level);
        let id = idOf.get(key);
        if (id === undefined) {
          id = idOf.size;
          idOf.set(key, id);
        }
        return id;
      });
      keys = { ids, idOf };
      this.#levels.set(level, keys);
    }
    return keys;
  }
}

/** Every start at or after `from` where `pattern` occurs in `text` (overlaps included): the count, and the first few. */
function occurrences(text: Int32Array, from: number, pattern: Int32Array): { count: number; starts: number[] } {
  const length = pattern.length;
  // prefix[i]: the length of the longest proper prefix of pattern[0..i] that is also its suffix.
  const prefix = new Int32Array(length);
  for (let index = 1, matched = 0; index < length; index++) {
    while (matched > 0 && pattern[index] !== pattern[matched]) matched = prefix[matched - 1]!;
    if (pattern[index] === pattern[matched]) matched++;
    prefix[index] = matched;
  }
  let count = 0;
  const starts: number[] = [];
  for (let index = from, matched = 0; index < text.length; index++) {
    while (matched > 0 && text[index] !== pattern[matched]) matched = prefix[matched - 1]!;
    if (text[index] === pattern[matched]) matched++;
    if (matched === length) {
      count++;
      if (starts.length < shownMatchStarts) starts.push(index - length + 1);
      matched = prefix[matched - 1]!;
    }
  }
  return { count, starts };
}
