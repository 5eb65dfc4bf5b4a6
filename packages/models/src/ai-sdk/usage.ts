// The AI SDK's usage of one call → Usage, with its cost when prices are given.
import type { LanguageModelV4Usage } from "@ai-sdk/provider";
import type { Usage } from "@castellan/harness";
import type { Prices } from "../shared/pricing.js";
import { toUsage as sharedUsage, tokenCount } from "../shared/usage.js";

/**
 * `inputTokens` is the SDK's total input, cached tokens included (or, without a total, the
 * uncached input plus the cache reads and writes); `outputTokens` includes reasoning tokens.
 * Counts the provider did not report are 0.
 */
export function toUsage(usage: LanguageModelV4Usage | undefined, prices: Prices | undefined): Usage {
  const cacheRead = tokenCount(usage?.inputTokens?.cacheRead);
  const cacheWrite = tokenCount(usage?.inputTokens?.cacheWrite);
  const noCache = tokenCount(usage?.inputTokens?.noCache);
  const total =
    tokenCount(usage?.inputTokens?.total) ??
    (noCache === undefined ? undefined : noCache + (cacheRead ?? 0) + (cacheWrite ?? 0));
  return sharedUsage(
    {
      inputTokens: total ?? 0,
      outputTokens: tokenCount(usage?.outputTokens?.total) ?? 0,
      cacheReadTokens: cacheRead ?? 0,
      cacheWriteTokens: cacheWrite ?? 0,
    },
    prices,
  );
}
