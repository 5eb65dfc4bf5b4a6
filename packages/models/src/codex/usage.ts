import type { Usage } from "@castellan/harness";
import type { CodexPricing } from "./options.js";

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The usage of a finished response. `inputTokens` counts every input token, cached ones
 * included, as OpenAI reports it; `cacheReadTokens` says how many of them came from the cache.
 * Undefined when the response reports no usage.
 */
export function toUsage(raw: unknown, pricing: CodexPricing | undefined): Usage | undefined {
  if (raw === null || typeof raw !== "object") return undefined;
  const usage = raw as {
    input_tokens?: unknown;
    output_tokens?: unknown;
    input_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null;
  };
  const inputTokens = count(usage.input_tokens);
  const outputTokens = count(usage.output_tokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const cacheReadTokens = count(usage.input_tokens_details?.cached_tokens);
  const cacheWriteTokens = count(usage.input_tokens_details?.cache_write_tokens);
  const result: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens, outputTokens };
  if (cacheReadTokens !== undefined) result.cacheReadTokens = cacheReadTokens;
  if (cacheWriteTokens) result.cacheWriteTokens = cacheWriteTokens;
  if (pricing) {
    const cached = cacheReadTokens ?? 0;
    const written = cacheWriteTokens ?? 0;
    const uncached = Math.max(0, inputTokens - cached - written);
    result.costUsd =
      (uncached * pricing.inputPerMillion +
        cached * (pricing.cachedInputPerMillion ?? pricing.inputPerMillion) +
        written * (pricing.cacheWritePerMillion ?? pricing.inputPerMillion) +
        outputTokens * pricing.outputPerMillion) /
      1_000_000;
  }
  return result;
}
