import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { openSession } from "../src/index.js";

const loop = defineTool({ name: "loop", description: "Loop", readOnly: true, execute: () => "again" });
const calls = (count: number) => Array.from({ length: count }, () => ({ toolCalls: [{ name: "loop", input: {} }] }));

describe("openSession's Runner options", () => {
  it("passes limits to the private Runner", async () => {
    const session = await openSession({
      agent: defineAgent("test.limits", { model: scriptedModel(calls(3)), tools: [loop] }),
      limits: { maxTurns: 2 },
    });
    try {
      await expect(session.run("go").result).rejects.toMatchObject({ code: "max_turns" });
    } finally {
      await session.close();
    }
  });

  it("passes the usage budget", async () => {
    const steps = calls(3).map((step) => ({ ...step, usage: { inputTokens: 10, outputTokens: 5 } }));
    const session = await openSession({
      agent: defineAgent("test.budget", { model: scriptedModel(steps), tools: [loop] }),
      budget: { maxOutputTokens: 10 },
    });
    try {
      await expect(session.run("go").result).rejects.toMatchObject({ code: "budget_exceeded" });
      expect(session.usage().total.outputTokens).toBe(10);
    } finally {
      await session.close();
    }
  });

  it("passes the context budget", async () => {
    const long = "x".repeat(4_000);
    const model = scriptedModel([{ text: long }, { text: "Summary." }, { text: "short" }], { contextWindow: 100_000 });
    const session = await openSession({
      agent: defineAgent("test.context", { model }),
      contextBudget: { contextWindow: 1_000, reserveOutputTokens: 0 },
    });
    try {
      await session.run("first").result;
      const second = session.run("second");
      const kinds: string[] = [];
      for await (const event of second) kinds.push(event.kind);
      expect(kinds).toContain("compaction-end");
      expect(model.requests[1]?.tools).toEqual([]);
      model.assertComplete();
    } finally {
      await session.close();
    }
  });
});
