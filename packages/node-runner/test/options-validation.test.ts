// Options are checked where they are given: a value out of range fails with invalid_options,
// naming the field and what it accepts, instead of silently changing nothing.
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner, type NodeRunnerOptions, openSession } from "../src/index.js";

const agent = defineAgent("test.options", { model: scriptedModel([{ text: "ok" }]) });

const invalid: readonly [string, Partial<NodeRunnerOptions>, RegExp][] = [
  ["a threshold given as a percentage", { contextBudget: { threshold: 80 } }, /contextBudget\.threshold .*\(0, 1\]/],
  ["a threshold of zero", { contextBudget: { threshold: 0 } }, /contextBudget\.threshold/],
  ["keepRecent of one", { contextBudget: { keepRecent: 1 } }, /contextBudget\.keepRecent .*\(0, 1\)/],
  ["a negative keepRecent", { contextBudget: { keepRecent: -0.2 } }, /contextBudget\.keepRecent/],
  [
    "a fractional reserveOutputTokens",
    { contextBudget: { reserveOutputTokens: 1.5 } },
    /contextBudget\.reserveOutputTokens must be a non-negative integer/,
  ],
  ["a negative reserveOutputTokens", { contextBudget: { reserveOutputTokens: -1 } }, /reserveOutputTokens/],
  [
    "a zero contextWindow",
    { contextBudget: { contextWindow: 0 } },
    /contextBudget\.contextWindow must be a positive integer/,
  ],
  [
    "a reserve as large as the window",
    { contextBudget: { contextWindow: 1_000, reserveOutputTokens: 1_000 } },
    /reserveOutputTokens \(1000\) must be less than contextBudget\.contextWindow \(1000\)/,
  ],
  [
    "a misspelt budget field",
    { contextBudget: { treshold: 0.5 } as never },
    /contextBudget\.treshold is not an option/,
  ],
  ["an empty summary instruction", { contextBudget: { instructions: " " } }, /contextBudget\.instructions/],
  ["a model that is neither a name nor a binding", { contextBudget: { model: 7 as never } }, /contextBudget\.model/],
  ["zero turns", { limits: { maxTurns: 0 } }, /limits\.maxTurns must be a positive integer/],
  ["fractional turns", { limits: { maxTurns: 2.5 } }, /limits\.maxTurns/],
  ["a negative abort grace", { limits: { abortGraceMs: -1 } }, /limits\.abortGraceMs must be a non-negative integer/],
  ["a misspelt limit", { limits: { maxTurn: 3 } as never }, /limits\.maxTurn is not an option/],
  ["limits that are not an object", { limits: 5 as never }, /limits must be an object/],
  [
    "a negative token budget",
    { budget: { maxInputTokens: -5 } },
    /budget\.maxInputTokens must be a non-negative integer/,
  ],
  [
    "a cost budget that is not a number",
    { budget: { maxCostUsd: "1" as never } },
    /budget\.maxCostUsd must be a non-negative number/,
  ],
  ["an infinite cost budget", { budget: { maxCostUsd: Number.POSITIVE_INFINITY } }, /budget\.maxCostUsd/],
  ["a misspelt budget", { budget: { maxTokens: 10 } as never }, /budget\.maxTokens is not an option/],
];

describe("createNodeRunner and openSession options", () => {
  it.each(invalid)("refuse %s with invalid_options", async (_name, options, message) => {
    await expect(createNodeRunner({ agent, ...options })).rejects.toMatchObject({
      code: "invalid_options",
      message: expect.stringMatching(message),
    });
    await expect(openSession({ agent, ...options })).rejects.toMatchObject({
      code: "invalid_options",
      message: expect.stringMatching(message),
    });
  });

  it("accept the boundaries of each range", async () => {
    const runner = await createNodeRunner({
      agent,
      limits: { maxTurns: 1, abortGraceMs: 0 },
      contextBudget: { threshold: 1, keepRecent: 0.999, reserveOutputTokens: 0, contextWindow: 1 },
      budget: { maxInputTokens: 0, maxCostUsd: 0 },
    });
    await runner.close();
    const session = await openSession({
      agent: defineAgent("test.options", { model: scriptedModel([{ text: "ok" }]) }),
    });
    try {
      expect((await session.run("hi").result).text).toBe("ok");
    } finally {
      await session.close();
    }
  });

  it("check a Run's own budget when the Run is started", async () => {
    const model = scriptedModel([{ text: "ok" }]);
    const session = await openSession({ agent: defineAgent("test.options", { model }) });
    try {
      expect(() => session.run("hi", { budget: { maxOutputTokens: 0.5 } })).toThrow(
        expect.objectContaining({
          code: "invalid_options",
          message: expect.stringContaining("RunOptions.budget.maxOutputTokens"),
        }),
      );
      // Nothing started: the Session is idle and the model was not asked.
      expect(model.requests).toHaveLength(0);
      expect((await session.run("hi").result).text).toBe("ok");
    } finally {
      await session.close();
    }
  });
});
