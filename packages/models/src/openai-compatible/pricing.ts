import { DeclarationError, type Usage } from "@castellan/harness";

/** A model's prices in US dollars per million tokens. */
export interface ModelPricing {
  /** Uncached input (prompt) tokens. */
  readonly inputPerMillion: number;
  /** Output (completion) tokens, reasoning included. */
  readonly outputPerMillion: number;
  /** Input tokens read from the provider's prompt cache. Default: `inputPerMillion`. */
  readonly cacheReadPerMillion?: number;
  /** Input tokens written to the provider's prompt cache. Default: `inputPerMillion`. */
  readonly cacheWritePerMillion?: number;
}

/** The cost of one call's tokens in US dollars. `inputTokens` includes the cached parts, priced apart. */
export function costOf(usage: Usage, pricing: ModelPricing): number {
  const cached = (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
  const dollarsTimesMillion =
    Math.max(0, usage.inputTokens - cached) * pricing.inputPerMillion +
    usage.outputTokens * pricing.outputPerMillion +
    (usage.cacheReadTokens ?? 0) * (pricing.cacheReadPerMillion ?? pricing.inputPerMillion) +
    (usage.cacheWriteTokens ?? 0) * (pricing.cacheWritePerMillion ?? pricing.inputPerMillion);
  return dollarsTimesMillion / 1_000_000;
}

/** Throws unless every price is a finite, non-negative number. */
export function assertPricing(pricing: ModelPricing, where: string): void {
  for (const [field, value] of Object.entries(pricing)) {
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new DeclarationError(
        `${where}: pricing.${field} must be a finite number of dollars per million tokens, at least 0.`,
      );
    }
  }
}
