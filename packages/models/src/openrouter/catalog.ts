// OpenRouter's public model catalog (GET /models, no key needed), read into each model's
// capabilities and prices.
import type { ErrorContext } from "../openai-compatible/errors.js";
import { malformed } from "../shared/malformed.js";
import type { ModelPricing } from "../shared/pricing.js";
import { getJson } from "./get-json.js";

/** OpenRouter's API root. */
export const openRouterBaseURL = "https://openrouter.ai/api/v1";

/** One model of OpenRouter's catalog. */
export interface OpenRouterModel {
  /** The id requests use, e.g. `anthropic/claude-sonnet-4.5`. */
  readonly id: string;
  /** The display name (the id when the catalog gives none). */
  readonly name: string;
  /** The context window in tokens, when the catalog says. */
  readonly contextLength: number | undefined;
  /** Whether the model accepts tools (`supported_parameters` includes `tools`). */
  readonly tools: boolean;
  /** Whether the model accepts images (`architecture.input_modalities` includes `image`). */
  readonly imageInput: boolean;
  /** Prices in USD per million tokens; undefined when the catalog gives none or they vary per request (e.g. routers). */
  readonly pricing: ModelPricing | undefined;
}

/** Options of `listOpenRouterModels`. */
export interface ListOpenRouterModelsOptions {
  /** Default `https://openrouter.ai/api/v1`. */
  readonly baseURL?: string;
  /** Aborting it stops the request; the promise rejects with the signal's reason. */
  readonly signal: AbortSignal;
}

/** The context of errors raised for OpenRouter, with the credential to keep out of them. */
export function openRouterContext(secret: string | undefined): ErrorContext {
  return { provider: "openrouter", label: "OpenRouter", secret };
}

/**
 * Lists OpenRouter's models with their capabilities. Public: sends no key. Failures throw a
 * ModelProviderError (`model_network`, `model_server_error`, …); entries without an id are
 * skipped.
 */
export async function listOpenRouterModels(options: ListOpenRouterModelsOptions): Promise<OpenRouterModel[]> {
  const context = openRouterContext(undefined);
  const baseURL = (options.baseURL ?? openRouterBaseURL).replace(/\/+$/, "");
  const body = await getJson(`${baseURL}/models`, { context, signal: options.signal });
  const data = isObject(body) ? body.data : undefined;
  if (!Array.isArray(data)) {
    throw malformed(context.provider, "OpenRouter's model list has no data array.");
  }
  const models: OpenRouterModel[] = [];
  for (const entry of data) {
    if (!isObject(entry) || typeof entry.id !== "string" || entry.id === "") continue;
    const architecture = isObject(entry.architecture) ? entry.architecture : {};
    models.push(
      Object.freeze({
        id: entry.id,
        name: typeof entry.name === "string" && entry.name ? entry.name : entry.id,
        contextLength: positiveInteger(entry.context_length),
        tools: Array.isArray(entry.supported_parameters) && entry.supported_parameters.includes("tools"),
        imageInput: Array.isArray(architecture.input_modalities) && architecture.input_modalities.includes("image"),
        pricing: pricingOf(entry.pricing),
      }),
    );
  }
  return models;
}

/** Per-token price strings → dollars per million tokens; negative prices mean "varies". */
function pricingOf(value: unknown): ModelPricing | undefined {
  if (!isObject(value)) return undefined;
  const input = perMillion(value.prompt);
  const output = perMillion(value.completion);
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = perMillion(value.input_cache_read);
  const cacheWrite = perMillion(value.input_cache_write);
  return Object.freeze({
    inputPerMillion: input,
    outputPerMillion: output,
    ...(cacheRead === undefined ? {} : { cacheReadPerMillion: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWritePerMillion: cacheWrite }),
  });
}

function perMillion(value: unknown): number | undefined {
  const perToken = typeof value === "string" ? Number(value) : typeof value === "number" ? value : Number.NaN;
  if (!Number.isFinite(perToken) || perToken < 0) return undefined;
  // Rounded to 12 significant digits: "0.000003" is 3, not 2.9999999999999996.
  return Number((perToken * 1_000_000).toPrecision(12));
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
