import { type ContextWindowRow, contextWindowTable, lookUpContextWindow } from "../shared/context-window-table.js";

/**
 * Input windows of OpenAI models served by the Responses API, in tokens: how much a request
 * may hold. The source is OpenAI's model pages ("Context window" and "Max output tokens"); for
 * the GPT-5 family the API accepts at most 272,000 input tokens (a 400,000-token window less
 * the 128,000 reserved for output), which is the number kept here. Rows match an exact id or an
 * id that continues with `-` (a dated snapshot or a variant such as `-codex`).
 *
 * An id that matches no row has no known window: pass `contextWindow`.
 */
export const codexContextWindows: readonly ContextWindowRow[] = contextWindowTable([
  { prefix: "gpt-5", tokens: 272_000 },
  { prefix: "gpt-5.1", tokens: 272_000 },
  { prefix: "gpt-5.2", tokens: 272_000 },
  { prefix: "codex-mini-latest", tokens: 200_000 },
  { prefix: "o3", tokens: 200_000 },
  { prefix: "o4-mini", tokens: 200_000 },
  { prefix: "gpt-4.1", tokens: 1_047_576 },
  { prefix: "gpt-4o", tokens: 128_000 },
]);

/** The documented input window of a model id, or undefined when the table has no row for it. */
export function codexContextWindow(model: string): number | undefined {
  return lookUpContextWindow(codexContextWindows, model);
}
