import type { Usage } from "@castellan/harness";
import type { Prices } from "../shared/pricing.js";
import { toUsage as sharedUsage, tokenCount } from "../shared/usage.js";

/**
 * The usage of a finished response. OpenAI's `input_tokens` already counts cached tokens, as
 * `Usage.inputTokens` does; `input_tokens_details.cached_tokens` (and `cache_write_tokens`
 * where a server reports it) are the cached parts, and `output_tokens` includes reasoning.
 * Undefined when the response reports no usage.
 */
export function toUsage(raw: unknown, prices: Prices | undefined): Usage | undefined {
  if (raw === null || typeof raw !== "object") return undefined;
  const usage = raw as {
    input_tokens?: unknown;
    output_tokens?: unknown;
    input_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null;
  };
  const inputTokens = tokenCount(usage.input_tokens);
  const outputTokens = tokenCount(usage.output_tokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const cacheReadTokens = tokenCount(usage.input_tokens_details?.cached_tokens);
  const cacheWriteTokens = tokenCount(usage.input_tokens_details?.cache_write_tokens);
  return sharedUsage(
    {
      inputTokens,
      outputTokens,
      ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
      ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
    },
    prices,
  );
}
