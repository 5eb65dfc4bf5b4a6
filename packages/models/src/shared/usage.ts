// The one shape every binding reports a call's tokens in.
import type { Usage } from "@castellan/harness";
import { costUsd, type Prices } from "./pricing.js";

/**
 * A call's token counts in the harness's convention, whatever the provider's: `inputTokens` is
 * every input token the call processed, cached ones included; `cacheReadTokens` and
 * `cacheWriteTokens` are the parts of it read from and written to a prompt cache;
 * `outputTokens` includes reasoning tokens. A provider that counts otherwise (Anthropic leaves
 * cached tokens out of `input_tokens`, xAI reasoning out of `completion_tokens`) is converted
 * by its adapter before this.
 */
export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/**
 * The usage event's payload: the counts, with `cacheReadTokens` / `cacheWriteTokens` present
 * only when above 0, and `costUsd` when the binding has prices.
 */
export function toUsage(counts: TokenCounts, prices: Prices | undefined): Usage {
  const usage: { -readonly [Key in keyof Usage]: Usage[Key] } = {
    inputTokens: counts.inputTokens,
    outputTokens: counts.outputTokens,
  };
  if ((counts.cacheReadTokens ?? 0) > 0) usage.cacheReadTokens = counts.cacheReadTokens;
  if ((counts.cacheWriteTokens ?? 0) > 0) usage.cacheWriteTokens = counts.cacheWriteTokens;
  if (prices) usage.costUsd = costUsd(usage, prices);
  return usage;
}

/** A count as providers report it: a finite number of at least 0, else undefined. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
