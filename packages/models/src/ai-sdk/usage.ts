// The AI SDK's usage of one call → Usage, with its cost when prices are given.
import type { LanguageModelV4Usage } from "@ai-sdk/provider";
import type { Usage } from "@castellan/harness";

/** Prices of a model in US dollars per million tokens. */
export interface AiSdkPricing {
  /** Uncached input tokens. */
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Input tokens read from the provider's cache. Default: `inputPerMillion`. */
  readonly cacheReadPerMillion?: number;
  /** Input tokens written to the provider's cache. Default: `inputPerMillion`. */
  readonly cacheWritePerMillion?: number;
}

/**
 * `inputTokens` is the SDK's total input, cached tokens included (as `cacheReadTokens` and
 * `cacheWriteTokens` say how many of them were); `outputTokens` includes reasoning tokens.
 * Counts the provider did not report are 0.
 */
export function toUsage(usage: LanguageModelV4Usage | undefined, pricing: AiSdkPricing | undefined): Usage {
  const cacheRead = count(usage?.inputTokens?.cacheRead);
  const cacheWrite = count(usage?.inputTokens?.cacheWrite);
  const noCache = count(usage?.inputTokens?.noCache);
  const total =
    count(usage?.inputTokens?.total) ??
    (noCache === undefined ? undefined : noCache + (cacheRead ?? 0) + (cacheWrite ?? 0));
  const inputTokens = total ?? 0;
  const outputTokens = count(usage?.outputTokens?.total) ?? 0;
  const result: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens, outputTokens };
  if (cacheRead !== undefined) result.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) result.cacheWriteTokens = cacheWrite;
  if (pricing) {
    const uncached = noCache ?? Math.max(0, inputTokens - (cacheRead ?? 0) - (cacheWrite ?? 0));
    result.costUsd =
      (uncached * pricing.inputPerMillion +
        (cacheRead ?? 0) * (pricing.cacheReadPerMillion ?? pricing.inputPerMillion) +
        (cacheWrite ?? 0) * (pricing.cacheWritePerMillion ?? pricing.inputPerMillion) +
        outputTokens * pricing.outputPerMillion) /
      1_000_000;
  }
  return result;
}

function count(value: number | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
