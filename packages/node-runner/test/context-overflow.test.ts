import { defineAgent, ModelProviderError } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { openSession } from "../src/index.js";

const overflow = () =>
  new ModelProviderError("model_context_overflow", "prompt is too long", { provider: "test", status: 400 });

describe("a provider refusing a request as too long", () => {
  it("compacts the conversation once and retries the call", async () => {
    const model = scriptedModel([
      { text: "first answer" },
      { text: "second answer" },
      { error: overflow() },
      { text: "Summary of what was said.", usage: { inputTokens: 7, outputTokens: 3 } },
      { text: "third answer", usage: { inputTokens: 2, outputTokens: 1 } },
    ]);
    const session = await openSession({ agent: defineAgent("test.overflow", { model }) });
    try {
      await session.run("one").result;
      await session.run("two").result;
      const run = session.run("three");
      const kinds: string[] = [];
      for await (const event of run) kinds.push(event.kind);
      const result = await run.result;
      expect(result.text).toBe("third answer");
      expect(kinds).toContain("compaction-end");
      // The summary request has no tools; the retried request starts with the summary.
      expect(model.requests[3]?.tools).toEqual([]);
      const retried = model.requests[4]?.messages ?? [];
      expect(retried[0]?.content[0]).toMatchObject({ type: "text" });
      expect(JSON.stringify(retried[0])).toContain("Summary of what was said.");
      expect(retried.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "three" }] });
      // The summary counts toward the Run's usage.
      expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 4 });
      model.assertComplete();
    } finally {
      await session.close();
    }
  });

  it("fails the Run when the retried call is refused again", async () => {
    const model = scriptedModel([
      { text: "first answer" },
      { error: overflow() },
      { text: "Summary." },
      { error: overflow() },
    ]);
    const session = await openSession({ agent: defineAgent("test.overflow-twice", { model }) });
    try {
      await session.run("one").result;
      const failed = session.run("two").result;
      await expect(failed).rejects.toMatchObject({ code: "model_failed" });
      await expect(failed).rejects.toHaveProperty("cause.code", "model_context_overflow");
      model.assertComplete();
    } finally {
      await session.close();
    }
  });

  it("fails with the provider's error when there is nothing to compact", async () => {
    const model = scriptedModel([{ error: overflow() }]);
    const session = await openSession({ agent: defineAgent("test.overflow-first", { model }) });
    try {
      await expect(session.run("one").result).rejects.toMatchObject({ code: "model_failed" });
      model.assertComplete();
    } finally {
      await session.close();
    }
  });
});
