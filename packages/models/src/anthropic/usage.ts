import type { Usage } from "@castellan/harness";
import type { Prices } from "../shared/pricing.js";
import { toUsage as sharedUsage } from "../shared/usage.js";

/** Anthropic's token counts of one message, as `message_start` and `message_delta` report them. */
export interface AnthropicTokenCounts {
  /** Uncached input tokens. */
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/**
 * The harness usage of one call. Anthropic's `input_tokens` counts only the uncached input, so
 * the cache reads and writes are added to make `inputTokens` every input token the call
 * processed, of which `cacheReadTokens` / `cacheWriteTokens` are parts (shared/usage.ts).
 */
export function toUsage(counts: AnthropicTokenCounts, prices: Prices | undefined): Usage {
  return sharedUsage(
    {
      inputTokens: counts.input + counts.cacheRead + counts.cacheWrite,
      outputTokens: counts.output,
      cacheReadTokens: counts.cacheRead,
      cacheWriteTokens: counts.cacheWrite,
    },
    prices,
  );
}
