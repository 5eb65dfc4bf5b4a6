// Checks an inference key against OpenRouter's GET /key before any model call.

import { requireText } from "../openai-compatible/options.js";
import { malformed } from "../shared/malformed.js";
import { openRouterBaseURL, openRouterContext } from "./catalog.js";
import { getJson } from "./get-json.js";

/** What OpenRouter says about a key (never the key itself). */
export interface OpenRouterKeyInfo {
  /** Credits used, in US dollars. */
  readonly usage: number | undefined;
  /** The key's credit limit in US dollars; null when unlimited. */
  readonly limit: number | null;
  /** Credits left under the limit; null when unlimited. */
  readonly limitRemaining: number | null;
  readonly isFreeTier: boolean;
}

/** Options of `verifyOpenRouterKey`. */
export interface VerifyOpenRouterKeyOptions {
  readonly apiKey: string;
  /** Default `https://openrouter.ai/api/v1`. */
  readonly baseURL?: string;
  /** Aborting it stops the request; the promise rejects with the signal's reason. */
  readonly signal: AbortSignal;
}

/**
 * Confirms that OpenRouter accepts the key (GET /key). A refused key rejects with `model_auth`;
 * other failures with their ModelProviderError. No model is called and nothing is spent.
 */
export async function verifyOpenRouterKey(options: VerifyOpenRouterKeyOptions): Promise<OpenRouterKeyInfo> {
  const apiKey = requireText(options?.apiKey, "verifyOpenRouterKey", "apiKey");
  const context = openRouterContext(apiKey);
  const baseURL = (options.baseURL ?? openRouterBaseURL).replace(/\/+$/, "");
  const body = await getJson(`${baseURL}/key`, {
    context,
    signal: options.signal,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const data =
    body !== null && typeof body === "object" ? (body as { data?: Record<string, unknown> }).data : undefined;
  if (data === null || typeof data !== "object") {
    throw malformed(context.provider, "OpenRouter's key answer has no data object.");
  }
  const amount = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  return Object.freeze({
    usage: amount(data.usage),
    limit: amount(data.limit) ?? null,
    limitRemaining: amount(data.limit_remaining) ?? null,
    isFreeTier: data.is_free_tier === true,
  });
}
