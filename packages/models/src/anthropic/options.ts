import { DeclarationError } from "@castellan/harness";
import { type CacheRates, checkPricing, type ModelPricing, type Prices } from "../shared/pricing.js";
import { retryCount } from "../shared/retry.js";
import { defaultContextWindow } from "./context-windows.js";

/** Where the Anthropic API lives unless `baseURL` says otherwise. */
export const DEFAULT_BASE_URL = "https://api.anthropic.com";
/** `max_tokens` of every request unless `maxOutputTokens` says otherwise. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;
/** Anthropic's smallest accepted thinking budget. */
export const MIN_THINKING_BUDGET = 1_024;

/**
 * Anthropic's cache prices as multiples of the input price: reads cost a tenth, writes 1.25×
 * (the 5-minute cache; set `cacheWritePerMillion` for the 1-hour cache, which costs 2×).
 */
export const ANTHROPIC_CACHE_RATES: CacheRates = Object.freeze({ read: 0.1, write: 1.25 });

/**
 * Extended thinking: `{ budgetTokens }` enables it with that budget (at least 1,024 and less
 * than `maxOutputTokens`); `"adaptive"` lets the model decide (for the models that support it);
 * `"off"` disables it explicitly.
 */
export type AnthropicThinking = { readonly budgetTokens: number } | "adaptive" | "off";

/** Options of `anthropic`. */
export interface AnthropicOptions {
  /** The API key (the SDK sends it as a bearer token). Kept in the binding's closure, never on the binding. */
  readonly apiKey: string;
  /** The model id, e.g. `claude-sonnet-4-6`. The specifier is `anthropic/<model>`. */
  readonly model: string;
  /** `max_tokens` of each request. Default 4,096. */
  readonly maxOutputTokens?: number;
  /**
   * Extended thinking. Default: no `thinking` field is sent, so the model's own default applies.
   * Thinking blocks that arrive either way are kept and sent back.
   */
  readonly thinking?: AnthropicThinking;
  /** Default `https://api.anthropic.com`. The `ANTHROPIC_BASE_URL` variable is not read. */
  readonly baseURL?: string;
  /**
   * How often a request that failed before anything was streamed is retried (429, 5xx, 529,
   * connection failures), honouring `retry-after`. A started stream is never retried. Default 2,
   * at most 10.
   */
  readonly maxRetries?: number;
  /**
   * Prices for `costUsd` in usage events (Anthropic's catalog publishes none). Default: no cost
   * is reported. Missing cache prices follow Anthropic's rates (ANTHROPIC_CACHE_RATES): a tenth
   * of `inputPerMillion` for reads, 1.25× for writes.
   */
  readonly pricing?: ModelPricing;
  /**
   * The model's context window in tokens. Default: the documented window of the model's family
   * (`defaultContextWindow`), or none for an id the table does not know; then automatic
   * compaction needs `contextBudget.contextWindow`.
   */
  readonly contextWindow?: number;
}

/** Options after defaults and checks. */
export interface ResolvedOptions {
  readonly apiKey: string;
  readonly model: string;
  readonly maxOutputTokens: number;
  readonly thinking: AnthropicThinking | undefined;
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly pricing: Prices | undefined;
  readonly contextWindow: number | undefined;
}

/** Checks the options and applies defaults. Throws DeclarationError; never echoes the key. */
export function resolveOptions(options: AnthropicOptions): ResolvedOptions {
  const where = "anthropic()";
  if (options === null || typeof options !== "object") throw new DeclarationError(`${where}: options are required.`);
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new DeclarationError(`${where}: apiKey must be a non-empty string.`);
  }
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw new DeclarationError(`${where}: model must be a non-empty model id.`);
  }
  const maxOutputTokens = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  positiveInteger(maxOutputTokens, `${where}: maxOutputTokens`);
  const maxRetries = retryCount(options.maxRetries, where);
  if (options.contextWindow !== undefined) positiveInteger(options.contextWindow, `${where}: contextWindow`);
  const contextWindow = options.contextWindow ?? defaultContextWindow(options.model);
  const thinking = options.thinking;
  if (thinking !== undefined && thinking !== "off" && thinking !== "adaptive") {
    const budget = (thinking as { budgetTokens?: unknown } | null)?.budgetTokens;
    if (typeof budget !== "number" || !Number.isInteger(budget) || budget < MIN_THINKING_BUDGET) {
      throw new DeclarationError(
        `${where}: thinking.budgetTokens must be an integer of at least ${MIN_THINKING_BUDGET}.`,
      );
    }
    if (budget >= maxOutputTokens) {
      throw new DeclarationError(
        `${where}: thinking.budgetTokens (${budget}) must be less than maxOutputTokens (${maxOutputTokens}).`,
      );
    }
  }
  const pricing = checkPricing(options.pricing, where, ANTHROPIC_CACHE_RATES);
  return {
    apiKey: options.apiKey,
    model: options.model,
    maxOutputTokens,
    thinking,
    baseURL: checkBaseURL(options.baseURL, where),
    maxRetries,
    pricing,
    contextWindow,
  };
}

/** The base URL to use, checked to be http(s) (shared with discovery). */
export function checkBaseURL(value: string | undefined, where: string): string {
  if (value === undefined) return DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DeclarationError(`${where}: baseURL is not a URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new DeclarationError(`${where}: baseURL must be an http or https URL.`);
  }
  return value;
}

function positiveInteger(value: unknown, what: string): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    throw new DeclarationError(`${what} must be a positive integer.`);
  }
}
