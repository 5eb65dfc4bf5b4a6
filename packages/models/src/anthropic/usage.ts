import type { Usage } from "@castellan/harness";
import type { AnthropicPricing } from "./options.js";

/** Anthropic's token counts of one message, as `message_start` and `message_delta` report them. */
export interface AnthropicTokenCounts {
  /** Uncached input tokens. */
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/**
 * The harness usage of one call. `inputTokens` is every input token the call processed:
 * Anthropic's `input_tokens` counts only the uncached ones, so the cache reads and writes are
 * added, and `cacheReadTokens`/`cacheWriteTokens` say how many of them went through the cache
 * (the same reading as providers whose input count includes cached tokens). `costUsd` is
 * reported when prices are given.
 */
export function toUsage(counts: AnthropicTokenCounts, pricing: AnthropicPricing | undefined): Usage {
  const usage: { -readonly [Key in keyof Usage]: Usage[Key] } = {
    inputTokens: counts.input + counts.cacheRead + counts.cacheWrite,
    outputTokens: counts.output,
  };
  if (counts.cacheRead > 0) usage.cacheReadTokens = counts.cacheRead;
  if (counts.cacheWrite > 0) usage.cacheWriteTokens = counts.cacheWrite;
  if (pricing) usage.costUsd = cost(counts, pricing);
  return usage;
}

/** US dollars for the counts at the given prices per million tokens. */
export function cost(counts: AnthropicTokenCounts, pricing: AnthropicPricing): number {
  const cacheRead = pricing.cacheReadPerMillion ?? pricing.inputPerMillion * 0.1;
  const cacheWrite = pricing.cacheWritePerMillion ?? pricing.inputPerMillion * 1.25;
  return (
    (counts.input * pricing.inputPerMillion +
      counts.output * pricing.outputPerMillion +
      counts.cacheRead * cacheRead +
      counts.cacheWrite * cacheWrite) /
    1_000_000
  );
}
