// A Chat Completions `usage` object → token counts, counting reasoning tokens once.
import type { TokenCounts } from "../shared/usage.js";

type Json = Record<string, unknown>;

/**
 * The counts a server reported. `inputTokens` is `prompt_tokens`, which counts cached tokens
 * too; `cacheReadTokens` / `cacheWriteTokens` come from `prompt_tokens_details`
 * (`cached_tokens`, `cache_write_tokens`).
 *
 * `outputTokens` is `completion_tokens`, plus `completion_tokens_details.reasoning_tokens` when
 * the server counts reasoning apart. Servers differ: OpenAI includes reasoning in
 * `completion_tokens`; xAI reports it separately, so a call that reasoned for 340 tokens and
 * answered in 2 says `completion_tokens: 2`. The numbers decide, per answer: reasoning is added
 * when it exceeds `completion_tokens` (it cannot be a part of it), or when `total_tokens` equals
 * prompt + completion + reasoning. Otherwise it is taken as included, OpenAI's documented
 * convention. Counts that are missing, negative or not numbers are 0.
 */
export function usageOf(usage: Json): TokenCounts {
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const reasoning = count(completionDetails.reasoning_tokens);
  const reasoningApart =
    reasoning > 0 && (reasoning > completion || usage.total_tokens === prompt + completion + reasoning);
  return {
    inputTokens: prompt,
    outputTokens: reasoningApart ? completion + reasoning : completion,
    cacheReadTokens: count(promptDetails.cached_tokens),
    cacheWriteTokens: count(promptDetails.cache_write_tokens),
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
