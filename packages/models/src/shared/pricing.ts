// One price list for every binding, checked when the binding is made, and one cost function.
import { DeclarationError, type Usage } from "@castellan/harness";

/**
 * A model's prices in US dollars per million tokens, for `Usage.costUsd`. Every price is a
 * finite number of at least 0.
 */
export interface ModelPricing {
  /** Input tokens that neither came from nor went to a prompt cache. */
  readonly inputPerMillion: number;
  /** Output tokens, reasoning tokens included. */
  readonly outputPerMillion: number;
  /** Input tokens read from the prompt cache. Default: the binding's rate (see its docs), usually `inputPerMillion`. */
  readonly cacheReadPerMillion?: number;
  /** Input tokens written to the prompt cache. Default: the binding's rate (see its docs), usually `inputPerMillion`. */
  readonly cacheWritePerMillion?: number;
}

/** Prices with both cache rates filled in: what a binding keeps and `costUsd` reads. */
export type Prices = Readonly<Required<ModelPricing>>;

/** A binding's default cache prices, as multiples of `inputPerMillion`. */
export interface CacheRates {
  readonly read: number;
  readonly write: number;
}

/** Cache tokens cost what other input tokens cost, unless the pricing says otherwise. */
export const INPUT_RATES: CacheRates = Object.freeze({ read: 1, write: 1 });

const FIELDS: readonly (keyof ModelPricing)[] = [
  "inputPerMillion",
  "outputPerMillion",
  "cacheReadPerMillion",
  "cacheWritePerMillion",
];

/**
 * Checks a `pricing` option of the factory `where` and returns its prices, with missing cache
 * prices set from `rates` (default INPUT_RATES), frozen: later changes to the caller's object
 * change nothing. Undefined stays undefined (no cost is reported). Throws DeclarationError for
 * a value that is not an object, a missing input or output price, a price that is negative or
 * not a finite number, and a field this type does not have (a misspelt price would otherwise
 * be ignored and every cost be wrong).
 */
export function checkPricing(pricing: unknown, where: string, rates: CacheRates = INPUT_RATES): Prices | undefined {
  if (pricing === undefined) return undefined;
  if (pricing === null || typeof pricing !== "object" || Array.isArray(pricing)) {
    throw new DeclarationError(`${where}: pricing must be an object of US dollar prices per million tokens.`);
  }
  const given = pricing as Record<string, unknown>;
  for (const [field, value] of Object.entries(given)) {
    if (!(FIELDS as readonly string[]).includes(field)) {
      throw new DeclarationError(`${where}: pricing.${field} is not a price; the prices are ${FIELDS.join(", ")}.`);
    }
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new DeclarationError(
        `${where}: pricing.${field} must be a finite number of US dollars per million tokens, at least 0.`,
      );
    }
  }
  if (given.inputPerMillion === undefined || given.outputPerMillion === undefined) {
    throw new DeclarationError(`${where}: pricing needs inputPerMillion and outputPerMillion.`);
  }
  return pricesOf(pricing as ModelPricing, rates);
}

/** The prices of an already valid pricing (a provider's catalog), with missing cache prices set from `rates`. */
export function pricesOf(pricing: ModelPricing, rates: CacheRates = INPUT_RATES): Prices {
  return Object.freeze({
    inputPerMillion: pricing.inputPerMillion,
    outputPerMillion: pricing.outputPerMillion,
    cacheReadPerMillion: pricing.cacheReadPerMillion ?? pricing.inputPerMillion * rates.read,
    cacheWritePerMillion: pricing.cacheWritePerMillion ?? pricing.inputPerMillion * rates.write,
  });
}

/**
 * The cost of one call in US dollars. `usage.inputTokens` counts the cached tokens too (the
 * harness's convention), so the input priced at `inputPerMillion` is what is left after the
 * cache reads and writes, which are priced at their own rates.
 */
export function costUsd(usage: Usage, prices: Prices): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  return (
    (uncached * prices.inputPerMillion +
      usage.outputTokens * prices.outputPerMillion +
      cacheRead * prices.cacheReadPerMillion +
      cacheWrite * prices.cacheWritePerMillion) /
    1_000_000
  );
}
