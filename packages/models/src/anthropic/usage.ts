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
  /** `usage.server_tool_use.web_search_requests`, when Anthropic reported it. */
  readonly webSearchRequests?: number;
}

/**
 * The harness usage of one call. Anthropic's `input_tokens` counts only the uncached input, so
 * the cache reads and writes are added to make `inputTokens` every input token the call
 * processed, of which `cacheReadTokens` / `cacheWriteTokens` are parts (shared/usage.ts).
 * `webSearchRequests` is present whenever Anthropic reported a count (0 included), and absent
 * when it did not; the cost does not include the searches' own price.
 */
export function toUsage(counts: AnthropicTokenCounts, prices: Prices | undefined): Usage {
  const usage = sharedUsage(
    {
      inputTokens: counts.input + counts.cacheRead + counts.cacheWrite,
      outputTokens: counts.output,
      cacheReadTokens: counts.cacheRead,
      cacheWriteTokens: counts.cacheWrite,
    },
    prices,
  );
  return counts.webSearchRequests === undefined ? usage : { ...usage, webSearchRequests: counts.webSearchRequests };
}
