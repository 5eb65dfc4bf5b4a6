// Quoting of patch and file lines in messages to the model: JSON-quoted so that tabs, trailing
// spaces and carriage returns show, and cut short so that a message stays small whatever the
// input held.

/** The most characters of one line a message shows. */
export const quotedLineLength = 120;

/** The most lines a message lists. */
export const quotedLineCount = 8;

/** `text` as a JSON string, cut to {@link quotedLineLength} characters (marked with `…`). */
export function quoteLine(text: string): string {
  if (text.length <= quotedLineLength) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, quotedLineLength))}…`;
}

/**
 * `lines` quoted one per line, each indented by two spaces, at most {@link quotedLineCount} of
 * them and then a line saying how many more there are.
 */
export function quoteLines(lines: readonly string[]): string {
  const shown = lines.slice(0, quotedLineCount).map((line) => `  ${quoteLine(line)}`);
  if (lines.length > quotedLineCount) shown.push(`  … and ${lines.length - quotedLineCount} more lines`);
  return shown.join("\n");
}
