/** One row of a documented context-window table: model ids it covers, and their window. */
export interface ContextWindowRow {
  /** Matches this exact id, or an id that continues with `-` (a dated snapshot, a variant). */
  readonly prefix: string;
  readonly tokens: number;
}

/** Freezes a table's rows. */
export function contextWindowTable(rows: readonly ContextWindowRow[]): readonly ContextWindowRow[] {
  return Object.freeze(rows.map((row) => Object.freeze({ ...row })));
}

/**
 * The window of `model` in a documented table: the row with the longest matching prefix (so
 * `gpt-5.1-codex` is read from its own row before `gpt-5`'s), or undefined when no row covers
 * it, in which case the binding states no window.
 */
export function lookUpContextWindow(table: readonly ContextWindowRow[], model: string): number | undefined {
  let best: ContextWindowRow | undefined;
  for (const row of table) {
    if (model !== row.prefix && !model.startsWith(`${row.prefix}-`)) continue;
    if (!best || row.prefix.length > best.prefix.length) best = row;
  }
  return best?.tokens;
}
