// Checks of the factories' options, shared by both adapters: wrong options fail when the
// binding is created, not at the first request.
import { DeclarationError } from "@castellan/harness";
import { checkPricing, type ModelPricing, type Prices } from "../shared/pricing.js";
import { retryCount } from "../shared/retry.js";

/** The largest token count `contextWindow` and `maxOutputTokens` accept. */
const MAX_TOKENS = 100_000_000;

/** The options both adapters take for their calls. */
export interface ChatCallOptions {
  readonly contextWindow?: number;
  readonly maxRetries?: number;
  readonly maxOutputTokens?: number;
  readonly pricing?: ModelPricing;
}

/** Those options checked, with `maxRetries` defaulted and `pricing` copied. */
export interface ChatCallSettings {
  /** Undefined when not given: each adapter has its own fallback. */
  readonly contextWindow: number | undefined;
  /** DEFAULT_MAX_RETRIES (2) when not given; at most MAX_RETRIES_LIMIT (10). */
  readonly maxRetries: number;
  readonly maxOutputTokens: number | undefined;
  /** The checked prices, a frozen copy: the caller changing its object later changes no binding. */
  readonly pricing: Prices | undefined;
}

/** Checks the call options of `where` (a factory's name, for messages); throws DeclarationError. */
export function chatCallSettings(options: ChatCallOptions, where: string): ChatCallSettings {
  const contextWindow = optionalInteger(options.contextWindow, where, "contextWindow", { min: 1, max: MAX_TOKENS });
  const maxRetries = retryCount(options.maxRetries, where);
  const maxOutputTokens = optionalInteger(options.maxOutputTokens, where, "maxOutputTokens", {
    min: 1,
    max: MAX_TOKENS,
  });
  const pricing = checkPricing(options.pricing, where);
  return { contextWindow, maxRetries, maxOutputTokens, pricing };
}

export function requireText(value: unknown, where: string, name: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new DeclarationError(`${where}: ${name} must be a non-empty string.`);
  }
  return value;
}

export function requireHttpUrl(value: unknown, where: string, name: string): string {
  const text = requireText(value, where, name);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DeclarationError(`${where}: ${name} must be an absolute http(s) URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new DeclarationError(`${where}: ${name} must be an absolute http(s) URL.`);
  }
  return text.replace(/\/+$/, "");
}

function optionalInteger(
  value: unknown,
  where: string,
  name: string,
  bounds: { readonly min: number; readonly max: number },
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw new DeclarationError(`${where}: ${name} must be an integer from ${bounds.min} to ${bounds.max}.`);
  }
  return value;
}

/** Header names and values as fetch accepts them (visible ASCII), so a bad one fails here. */
export function checkHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  where: string,
): Readonly<Record<string, string>> | undefined {
  if (headers === undefined) return undefined;
  if (headers === null || typeof headers !== "object")
    throw new DeclarationError(`${where}: headers must be an object.`);
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new DeclarationError(`${where}: header name "${name}" is not a valid HTTP header name.`);
    }
    if (typeof value !== "string" || !/^[\x20-\x7e]*$/.test(value)) {
      throw new DeclarationError(`${where}: header "${name}" must be a string of printable ASCII characters.`);
    }
  }
  return headers;
}
