import { DeclarationError, type ModelBinding, ModelProviderError } from "@castellan/harness";
import { createChatClient } from "../openai-compatible/client.js";
import { compatibleStream } from "../openai-compatible/compatible-stream.js";
import { chatCallSettings, checkHeaders, requireHttpUrl, requireText } from "../openai-compatible/options.js";
import { type ModelPricing, pricesOf } from "../shared/pricing.js";
import { listOpenRouterModels, type OpenRouterModel, openRouterBaseURL, openRouterContext } from "./catalog.js";
import { sharedOnce } from "./shared-once.js";

/** Options of `openrouter`. */
export interface OpenRouterOptions {
  /** An OpenRouter inference key (`sk-or-…`); kept inside the binding. */
  readonly apiKey: string;
  /** A catalog model id, e.g. `anthropic/claude-sonnet-4.5`. */
  readonly model: string;
  /** Your app's name, sent as `X-Title` for OpenRouter's attribution (printable ASCII). */
  readonly appName?: string;
  /** Your app's URL, sent as `HTTP-Referer` for OpenRouter's attribution. */
  readonly appUrl?: string;
  /** Default `https://openrouter.ai/api/v1`. */
  readonly baseURL?: string;
  /** Extra headers sent with every inference request (printable ASCII). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Further attempts after a retryable failure, only while nothing has been streamed. Default 2, at most 10. */
  readonly maxRetries?: number;
  /** Longest answer in tokens (`max_tokens`). Default: the model's own limit. */
  readonly maxOutputTokens?: number;
  /** Overrides the catalog's context length. */
  readonly contextWindow?: number;
  /** Overrides the catalog's prices. */
  readonly pricing?: ModelPricing;
  /**
   * The model's entry from `listOpenRouterModels`, when the application already read the
   * catalog: the binding then knows its context window and prices at once and never reads the
   * catalog itself. Its id must be `model`.
   */
  readonly catalogEntry?: OpenRouterModel;
}

/** An OpenRouter model binding. */
export interface OpenRouterBinding extends ModelBinding {
  /**
   * The `contextWindow` option, or else the model's context length from the catalog once it
   * is known (after `check()` or the first request, or from `catalogEntry`); undefined before.
   * The Runner reads it before every model call.
   */
  readonly contextWindow: number | undefined;
  /**
   * Reads OpenRouter's catalog (at most once per binding; concurrent calls share one request)
   * and returns the model's entry. Rejects with `model_unknown` when the catalog lacks the
   * model, with the signal's reason when aborted (the request is stopped once no caller waits),
   * or with the request's ModelProviderError; a failed read is tried again by the next call.
   * The first `stream` call runs it too, so an unknown id never reaches inference.
   */
  check(options?: { readonly signal?: AbortSignal }): Promise<OpenRouterModel>;
}

/**
 * A model on OpenRouter, streamed over its OpenAI-compatible Chat Completions API (the same
 * path as `openaiCompatible`). Creating it connects to nothing; the catalog is read on the
 * first `check()` or `stream` call unless `catalogEntry` is given. A reasoning model's
 * `reasoning_details` are kept on the assistant message and sent back unchanged, so its
 * reasoning continues across tool calls and restored Sessions. Provider-hosted tools (e.g. web
 * search) are refused with `model_unsupported` before the catalog is read or anything is sent.
 */
export function openrouter(options: OpenRouterOptions): OpenRouterBinding {
  const where = "openrouter";
  const apiKey = requireText(options?.apiKey, where, "apiKey");
  const model = requireText(options.model, where, "model");
  const baseURL = requireHttpUrl(options.baseURL ?? openRouterBaseURL, where, "baseURL");
  const { contextWindow, maxRetries, maxOutputTokens, pricing } = chatCallSettings(options, where);
  if (options.catalogEntry !== undefined && options.catalogEntry?.id !== model) {
    throw new DeclarationError(`${where}: catalogEntry describes "${options.catalogEntry?.id}", not "${model}".`);
  }
  const headers = checkHeaders(
    {
      ...(options.appUrl !== undefined ? { "HTTP-Referer": requireHttpUrl(options.appUrl, where, "appUrl") } : {}),
      ...(options.appName !== undefined ? { "X-Title": requireText(options.appName, where, "appName") } : {}),
      ...options.headers,
    },
    where,
  );
  const context = openRouterContext(apiKey);
  let entry: OpenRouterModel | undefined = options.catalogEntry;
  const readCatalog = sharedOnce(async (signal) => {
    const models = await listOpenRouterModels({ baseURL, signal });
    return models.find((candidate) => candidate.id === model);
  });
  const check = async (checkOptions?: { readonly signal?: AbortSignal }): Promise<OpenRouterModel> => {
    if (entry) return entry;
    const found = await readCatalog(checkOptions?.signal);
    if (!found) {
      throw new ModelProviderError(
        "model_unknown",
        `OpenRouter's catalog has no model "${model}"; pick an id from listOpenRouterModels().`,
        { provider: context.provider },
      );
    }
    entry = found;
    return found;
  };
  const stream = compatibleStream({
    context,
    client: createChatClient({ apiKey, baseURL, headers }),
    request: { model, maxOutputTokens, maxTokensField: "max_tokens" },
    maxRetries,
    pricing: () => pricing ?? (entry?.pricing ? pricesOf(entry.pricing) : undefined),
    prepare: async (signal) => {
      await check({ signal });
    },
  });
  return Object.freeze({
    specifier: `openrouter/${model}`,
    get contextWindow() {
      return contextWindow ?? entry?.contextLength;
    },
    stream,
    check,
  });
}
