// The one price list and cost function: checked when a binding is made, priced per cache part.
import { DeclarationError } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { checkPricing, costUsd, INPUT_RATES, pricesOf } from "../../src/shared/pricing.js";
import { toUsage } from "../../src/shared/usage.js";

describe("checkPricing", () => {
  it("fills missing cache prices from the binding's rates and copies the prices", () => {
    const given = { inputPerMillion: 4, outputPerMillion: 20 };
    const prices = checkPricing(given, "test");
    expect(prices).toEqual({
      inputPerMillion: 4,
      outputPerMillion: 20,
      cacheReadPerMillion: 4,
      cacheWritePerMillion: 4,
    });
    expect(checkPricing(given, "test", { read: 0.1, write: 1.25 })).toEqual({
      inputPerMillion: 4,
      outputPerMillion: 20,
      cacheReadPerMillion: expect.closeTo(0.4, 12),
      cacheWritePerMillion: 5,
    });
    given.inputPerMillion = 100;
    expect(prices?.inputPerMillion).toBe(4);
    expect(Object.isFrozen(prices)).toBe(true);
    expect(checkPricing(undefined, "test")).toBeUndefined();
    expect(pricesOf({ inputPerMillion: 1, outputPerMillion: 2, cacheReadPerMillion: 0 }, INPUT_RATES)).toEqual({
      inputPerMillion: 1,
      outputPerMillion: 2,
      cacheReadPerMillion: 0,
      cacheWritePerMillion: 1,
    });
  });

  it.each([
    [{ inputPerMillion: -1, outputPerMillion: 1 }, /inputPerMillion must be a finite number/],
    [{ inputPerMillion: 1, outputPerMillion: Number.POSITIVE_INFINITY }, /outputPerMillion must be a finite/],
    [{ inputPerMillion: 1, outputPerMillion: 1, cacheReadPerMillion: Number.NaN }, /cacheReadPerMillion/],
    [{ inputPerMillion: 1, outputPerMillion: 1, cacheWritePerMillion: "2" }, /cacheWritePerMillion/],
    [{ inputPerMillion: 1 }, /needs inputPerMillion and outputPerMillion/],
    [{ inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: 0.1 }, /cachedInputPerMillion is not a price/],
    [null, /must be an object/],
    [[1, 2], /must be an object/],
  ])("refuses %j with a DeclarationError", (pricing, message) => {
    expect(() => checkPricing(pricing, "test")).toThrow(DeclarationError);
    expect(() => checkPricing(pricing, "test")).toThrow(message);
  });
});

describe("costUsd and toUsage", () => {
  it("prices the uncached input, the cache reads, the cache writes and the output apart", () => {
    const prices = checkPricing(
      { inputPerMillion: 3, outputPerMillion: 15, cacheReadPerMillion: 0.3, cacheWritePerMillion: 3.75 },
      "test",
    );
    if (!prices) throw new Error("no prices");
    const usage = { inputTokens: 3_400, outputTokens: 500, cacheReadTokens: 2_000, cacheWriteTokens: 400 };
    expect(costUsd(usage, prices)).toBeCloseTo((1_000 * 3 + 2_000 * 0.3 + 400 * 3.75 + 500 * 15) / 1e6, 12);
    expect(toUsage(usage, prices)).toEqual({ ...usage, costUsd: costUsd(usage, prices) });
  });

  it("leaves out cache counts of 0 and the cost without prices", () => {
    expect(toUsage({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }, undefined)).toEqual({
      inputTokens: 10,
      outputTokens: 2,
    });
  });
});
