// The authenticated model catalog (GET /v1/models) and a key check built on it.
import type { Anthropic } from "@anthropic-ai/sdk";
import { abortError } from "../shared/abort.js";
import { malformed } from "../shared/malformed.js";
import { retryCount, retrying } from "../shared/retry.js";
import { createClient } from "./client.js";
import { make, PROVIDER, toModelError } from "./errors.js";
import { checkBaseURL } from "./options.js";

/** Options of `listModels` and `verifyKey`. */
export interface AnthropicDiscoveryOptions {
  readonly apiKey: string;
  /** Default `https://api.anthropic.com`. */
  readonly baseURL?: string;
  /** Aborting it stops the request; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Retries of a page request that failed (429, 5xx, connection), under the shared policy
   * (honouring `retry-after` up to 60 s). Default 2, at most 10.
   */
  readonly maxRetries?: number;
}

/** One model of the catalog. */
export interface AnthropicModelInfo {
  /** The id to pass as `model`, e.g. `claude-sonnet-4-6`. */
  readonly id: string;
  readonly displayName: string;
  /** When the model was released, as the catalog's RFC 3339 timestamp. */
  readonly createdAt: string;
  /** The catalog's `max_input_tokens`, where it reports one. */
  readonly contextWindow?: number;
  /** The catalog's `max_tokens`, where it reports one. */
  readonly maxOutputTokens?: number;
}

/** Models per catalog page (Anthropic allows at most 1,000). */
const PAGE_SIZE = 100;
/** A catalog this long means the pagination is not advancing. */
const MAX_PAGES = 100;

/**
 * Every model the key can use, newest first, following the catalog's `after_id`/`has_more`
 * pagination. Rejects with a ModelProviderError (e.g. `model_auth` for a refused key) or, when
 * aborted, with the signal's reason.
 */
export async function listModels(options: AnthropicDiscoveryOptions): Promise<AnthropicModelInfo[]> {
  const { client, signal, request } = discoveryClient(options, "listModels()");
  if (signal?.aborted) throw abortError(signal);
  const models: AnthropicModelInfo[] = [];
  try {
    let page = await request(async () =>
      (await client()).models.list({ limit: PAGE_SIZE }, signal ? { signal } : undefined),
    );
    for (let pages = 1; ; pages++) {
      for (const model of page.data) models.push(toInfo(model));
      if (!page.hasNextPage()) return models;
      if (pages >= MAX_PAGES) {
        throw malformed(PROVIDER, `Anthropic's model catalog did not end after ${MAX_PAGES} pages.`);
      }
      const current = page;
      page = await request(() => current.getNextPage());
    }
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw error;
  }
}

/**
 * Checks the key by reading one catalog page. Resolves when Anthropic accepts it; rejects with
 * a `model_auth` ModelProviderError when the key is refused, with another ModelProviderError
 * when the check itself failed (network, server), or with the signal's reason when aborted.
 */
export async function verifyKey(options: AnthropicDiscoveryOptions): Promise<void> {
  const { client, signal, request } = discoveryClient(options, "verifyKey()");
  if (signal?.aborted) throw abortError(signal);
  try {
    await request(async () => (await client()).models.list({ limit: 1 }, signal ? { signal } : undefined));
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw error;
  }
}

function discoveryClient(options: AnthropicDiscoveryOptions, where: string) {
  if (typeof options?.apiKey !== "string" || options.apiKey.trim() === "") {
    throw make("model_auth", `${where}: apiKey must be a non-empty string.`, "", { retryable: false });
  }
  const maxRetries = retryCount(options.maxRetries, where);
  const client = createClient({ apiKey: options.apiKey, baseURL: checkBaseURL(options.baseURL, where) });
  const { apiKey, signal } = options;
  /** One catalog request: its failure typed, and retried under the shared policy. */
  const request = <T>(send: () => PromiseLike<T>): Promise<T> =>
    retrying(
      async () => {
        try {
          return await send();
        } catch (error) {
          throw toModelError(error, apiKey);
        }
      },
      { maxRetries, signal },
    );
  return { client, signal, request };
}

function toInfo(model: Anthropic.ModelInfo): AnthropicModelInfo {
  return {
    id: model.id,
    displayName: model.display_name,
    createdAt: model.created_at,
    ...(typeof model.max_input_tokens === "number" ? { contextWindow: model.max_input_tokens } : {}),
    ...(typeof model.max_tokens === "number" ? { maxOutputTokens: model.max_tokens } : {}),
  };
}
