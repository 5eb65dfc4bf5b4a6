import type { LanguageModelV3, LanguageModelV4, SharedV4ProviderOptions } from "@ai-sdk/provider";
import { DeclarationError, type ModelBinding } from "@castellan/harness";
import { checkPricing, type ModelPricing } from "../shared/pricing.js";
import { retryCount } from "../shared/retry.js";
import { type CallSettings, streamCall } from "./call.js";
import type { AiSdkProviderToolMapping } from "./hosted-tools.js";
import { fromV3 } from "./v3-bridge.js";

/** Options of `aiSdk`. */
export interface AiSdkOptions {
  /** The binding's name. Default `<model.provider>/<model.modelId>`, e.g. `openai.chat/gpt-4o-mini`. */
  readonly specifier?: string;
  /**
   * The model's context window in tokens, a positive integer. The AI SDK does not report one,
   * so the default is none: automatic compaction then needs `contextBudget.contextWindow`.
   */
  readonly contextWindow?: number;
  /**
   * Prices per million tokens, to report `costUsd`; checked when the binding is made. Default:
   * no cost is reported. Missing cache prices are `inputPerMillion`.
   */
  readonly pricing?: ModelPricing;
  /**
   * Provider options sent with every call, keyed by provider, e.g. `{ openai: { store: false } }`
   * or `{ anthropic: { thinking: { type: "enabled", budgetTokens: 4000 } } }`. Default none.
   */
  readonly providerOptions?: SharedV4ProviderOptions;
  /** The answer's token limit. Default: the provider's. A positive integer. */
  readonly maxOutputTokens?: number;
  /**
   * Retries of a retryable failure before anything was streamed (rate limits, overload, 5xx,
   * dropped connections), honouring the provider's `retry-after` up to 60 s. Default 2; 0-10.
   */
  readonly maxRetries?: number;
  /**
   * Hosted tool kinds this binding serves, mapped to the provider's tools, e.g.
   * `{ "web-search": { id: "anthropic.web_search_20250305", args: { maxUses: 3 } } }`.
   * Built in: `web-search` on OpenAI Responses models (`openai.web_search`). A hosted tool the
   * binding cannot map ends the call with `model_unsupported` before anything is sent. The
   * provider-run calls of a `web-search` tool are kept as provider blocks and also reported as
   * `hosted-tool` events (queries from the call's input or result, sources from the result or
   * the `source` parts after it).
   */
  readonly providerTools?: Readonly<Record<string, AiSdkProviderToolMapping>>;
}

/**
 * Wraps a Vercel AI SDK language model (the `LanguageModelV4` interface of `@ai-sdk/provider` 4,
 * which every AI SDK provider package implements, or the previous `LanguageModelV3`) as a
 * Castellan model binding:
 *
 * ```ts
 * import { createAnthropic } from "@ai-sdk/anthropic";
 * const model = aiSdk(createAnthropic({ apiKey })("claude-sonnet-4-5"), { contextWindow: 200_000 });
 * ```
 *
 * Creating it connects to nothing. The provider's credential stays inside the language model
 * the caller made; the binding keeps that model in a closure and exposes only `specifier`,
 * `contextWindow` and `stream`. Calls go through `doStream` only.
 */
export function aiSdk(languageModel: LanguageModelV4 | LanguageModelV3, options: AiSdkOptions = {}): ModelBinding {
  const model = checkModel(languageModel);
  const contextWindow = options.contextWindow;
  if (contextWindow !== undefined && (!Number.isInteger(contextWindow) || contextWindow <= 0)) {
    throw new DeclarationError(`aiSdk: contextWindow must be a positive integer; got ${String(contextWindow)}.`);
  }
  const maxRetries = retryCount(options.maxRetries, "aiSdk");
  const { maxOutputTokens } = options;
  if (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens <= 0)) {
    throw new DeclarationError(`aiSdk: maxOutputTokens must be a positive integer; got ${String(maxOutputTokens)}.`);
  }
  const pricing = checkPricing(options.pricing, "aiSdk");
  const specifier = options.specifier ?? `${model.provider}/${model.modelId}`;
  if (typeof specifier !== "string" || specifier.length === 0) {
    throw new DeclarationError("aiSdk: specifier must be a non-empty string.");
  }
  const settings: CallSettings = Object.freeze({
    specifier,
    pricing,
    providerOptions: options.providerOptions === undefined ? undefined : structuredClone(options.providerOptions),
    providerTools: options.providerTools === undefined ? undefined : structuredClone(options.providerTools),
    maxOutputTokens,
    maxRetries,
  });
  return Object.freeze({
    specifier,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    stream: (request, { signal }) => streamCall(model, request, signal, settings),
  } satisfies ModelBinding);
}

function checkModel(model: LanguageModelV4 | LanguageModelV3): LanguageModelV4 {
  const candidate = model as Partial<LanguageModelV4 | LanguageModelV3> | null | undefined;
  if (candidate === null || typeof candidate !== "object" || typeof candidate.doStream !== "function") {
    throw new DeclarationError("aiSdk: expected an AI SDK language model (an object with doStream).");
  }
  if (model.specificationVersion === "v4") return model;
  if (model.specificationVersion === "v3") return fromV3(model);
  throw new DeclarationError(
    `aiSdk: the language model implements specification ${JSON.stringify(candidate.specificationVersion)}; this adapter speaks "v4" and "v3" (@ai-sdk/provider 4 and 3). Use a newer provider package.`,
  );
}
