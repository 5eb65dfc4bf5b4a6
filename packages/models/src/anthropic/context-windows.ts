import { type ContextWindowRow, contextWindowTable, lookUpContextWindow } from "../shared/context-window-table.js";

/**
 * Standard context windows of Anthropic's Claude models, in tokens, by model-id prefix. The
 * source is Anthropic's "Models overview" (its "Context window" row for each model): every
 * Claude 3, 3.5, 3.7, 4, 4.1, 4.5 and 4.6 model has a 200,000-token standard window. Larger
 * windows (the 1M-token beta) exist only behind a beta header and are not assumed.
 *
 * An id that matches no row has no known window: pass `contextWindow`, for example the
 * catalog's `max_input_tokens` that `listModels` reports as `contextWindow`.
 */
export const anthropicContextWindows: readonly ContextWindowRow[] = contextWindowTable([
  { prefix: "claude-opus-4", tokens: 200_000 },
  { prefix: "claude-sonnet-4", tokens: 200_000 },
  { prefix: "claude-haiku-4", tokens: 200_000 },
  { prefix: "claude-3-7-sonnet", tokens: 200_000 },
  { prefix: "claude-3-5-sonnet", tokens: 200_000 },
  { prefix: "claude-3-5-haiku", tokens: 200_000 },
  { prefix: "claude-3-opus", tokens: 200_000 },
  { prefix: "claude-3-sonnet", tokens: 200_000 },
  { prefix: "claude-3-haiku", tokens: 200_000 },
]);

/** The documented standard window of a model id, or undefined when the table has no row for it. */
export function defaultContextWindow(model: string): number | undefined {
  return lookUpContextWindow(anthropicContextWindows, model);
}
