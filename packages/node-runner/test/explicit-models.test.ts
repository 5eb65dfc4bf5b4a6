// Explicit model changes: a Run's `model` option and `resume({ model })` resolve a name with the
// declaration's rules and never fall back to the declared model; inspection says whether
// automatic compaction is on, and with which window.
import { defineAgent, type ModelBinding, type ModelRequest, type ModelStreamEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, openSession } from "../src/index.js";
import { drain, openOnOwnRunner, plugin, storePlugin, storeRecords } from "./support/index.ts";

/** A binding of `specifier` without a known context window, spread from a plain runtime. */
function windowless(specifier: string, text: string): ModelBinding & { readonly calls: ModelRequest[] } {
  const calls: ModelRequest[] = [];
  const runtime = {
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
      calls.push(request);
      yield { type: "text-delta", text };
      yield { type: "usage", usage: { inputTokens: 1, outputTokens: 1 } };
      yield { type: "finish", stopReason: "end" };
    },
  };
  // The seed's `{ specifier, ...runtime }` form: a runtime named without a window.
  return { specifier, ...runtime, calls };
}

describe("a Run's model option", () => {
  it("uses a registered name for that Run only, and the declared model otherwise", async () => {
    const chat = scriptedModel([{ text: "from chat" }, { text: "chat again" }], { specifier: "chat-binding" });
    const review = scriptedModel([{ text: "from review" }], { specifier: "review-binding" });
    const store = createMemorySessionStore();
    const agent = defineAgent("test.models", { model: "app/chat" });
    const { session, close } = await openOnOwnRunner(
      {
        agent,
        plugins: [
          storePlugin(store),
          plugin("models", (host) => {
            host.registerModel("app/chat", chat);
            host.registerModel("app/review", review);
          }),
        ],
      },
      { id: "s" },
    );
    try {
      expect((await session.run("one").result).text).toBe("from chat");
      expect((await session.run("two", { model: "app/review" }).result).text).toBe("from review");
      expect((await session.run("three").result).text).toBe("chat again");
    } finally {
      await close();
    }
    // The review model saw the whole conversation so far; each answer names the model that gave it.
    expect(review.requests[0]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    const answers = (await storeRecords(store, "s")).filter((record) => record.kind === "assistant-message");
    expect(answers.map((record) => (record.kind === "assistant-message" ? record.model : ""))).toEqual([
      "chat-binding",
      "review-binding",
      "chat-binding",
    ]);
    chat.assertComplete();
    review.assertComplete();
  });

  it("takes a binding directly", async () => {
    const declared = scriptedModel([], { specifier: "declared" });
    const other = scriptedModel([{ text: "other" }], { specifier: "other" });
    const session = await openSession({ agent: defineAgent("test.models", { model: declared }) });
    try {
      const { events } = await drain(session.run("hi", { model: other }));
      expect(events.find((event) => event.kind === "model-usage")).toMatchObject({ model: "other" });
    } finally {
      await session.close();
    }
    expect(declared.requests).toHaveLength(0);
    other.assertComplete();
  });

  it("refuses an unknown name with model_not_found before the Run starts, saving nothing", async () => {
    const declared = scriptedModel([{ text: "declared" }], { specifier: "declared" });
    const store = createMemorySessionStore();
    const session = await openSession({ agent: defineAgent("test.models", { model: declared }), id: "s", store });
    try {
      expect(() => session.run("hi", { model: "app/missing" })).toThrow(
        expect.objectContaining({
          code: "model_not_found",
          message: expect.stringContaining('"app/missing"'),
        }),
      );
      expect(() => session.run("hi", { model: 42 as unknown as string })).toThrow(
        expect.objectContaining({ code: "invalid_options" }),
      );
      // The Session is still idle and the declared model untouched.
      expect(declared.requests).toHaveLength(0);
      expect((await session.run("hi").result).text).toBe("declared");
    } finally {
      await session.close();
    }
    // Only the Run that started was saved.
    const saved = await storeRecords(store, "s");
    expect(saved.filter((record) => record.kind === "run-start")).toHaveLength(1);
  });

  it("asks the Runner's resolver for the requested name, not the declared one", async () => {
    const asked: string[] = [];
    const answers = new Map([
      ["app/chat", scriptedModel([{ text: "chat" }])],
      ["app/fast", scriptedModel([{ text: "fast" }])],
    ]);
    const { session, close } = await openOnOwnRunner({
      agent: defineAgent("test.models", { model: "app/chat" }),
      plugins: [
        plugin("resolver", (host) =>
          host.registerModelResolver({
            resolve: ({ name }) => {
              asked.push(name);
              const model = answers.get(name);
              if (!model) throw new Error(`unknown ${name}`);
              return model;
            },
          }),
        ),
      ],
    });
    try {
      expect((await session.run("a", { model: "app/fast" }).result).text).toBe("fast");
      expect((await session.run("b").result).text).toBe("chat");
      // An unregistered name reaches the resolver, whose refusal fails the Run; nothing falls back.
      await expect(session.run("c", { model: "app/none" }).result).rejects.toMatchObject({
        code: "model_resolution_failed",
      });
    } finally {
      await close();
    }
    expect(asked).toEqual(["app/fast", "app/chat", "app/none"]);
  });
});

describe("resume({ model })", () => {
  it("continues the interrupted Run on the chosen model", async () => {
    const store = createMemorySessionStore();
    const agent = defineAgent("test.models", { model: "app/chat" });
    const first = scriptedModel([{ hang: true }]);
    const models = (chat: ModelBinding) =>
      plugin("models", (host) => {
        host.registerModel("app/chat", chat);
        host.registerModel("app/review", review);
      });
    const review = scriptedModel([{ text: "reviewed" }], { specifier: "review-binding" });
    // A Run left without its end, as a stopped process leaves it.
    await store.open("s").then(async (log) => {
      await log.append([
        { kind: "session-open", formatVersion: 1, sessionId: "s", agentId: "test.models", params: {} },
        { kind: "run-start", runId: "r1", input: [{ type: "text", text: "hello" }] },
      ]);
      await log.close();
    });
    const { session, close } = await openOnOwnRunner(
      { agent, plugins: [storePlugin(store), models(first)] },
      { id: "s" },
    );
    try {
      expect(() => session.resume({ model: "app/unknown" })).toThrow(
        expect.objectContaining({ code: "model_not_found" }),
      );
      const result = await session.resume({ model: "app/review" }).result;
      expect(result).toMatchObject({ runId: "r1", text: "reviewed" });
    } finally {
      await close();
    }
    expect(first.requests).toHaveLength(0);
    review.assertComplete();
  });
});

describe("inspection of automatic compaction", () => {
  it("is on with the binding's window, or the configured one, and off, saying why, without either", async () => {
    const withWindow = await openSession({
      agent: defineAgent("test.models", { model: scriptedModel([], { specifier: "w", contextWindow: 50_000 }) }),
    });
    const configured = await openSession({
      agent: defineAgent("test.models", { model: windowless("plain", "x") }),
      contextBudget: { contextWindow: 8_000 },
    });
    const without = await openSession({ agent: defineAgent("test.models", { model: windowless("plain", "x") }) });
    try {
      expect(withWindow.inspect().compaction).toEqual({
        automatic: true,
        contextWindow: 50_000,
        source: "model",
        model: "w",
      });
      expect(configured.inspect().compaction).toEqual({
        automatic: true,
        contextWindow: 8_000,
        source: "context-budget",
        model: "plain",
      });
      expect(without.inspect().compaction).toEqual({
        automatic: false,
        model: "plain",
        reason: 'Model "plain" reports no context window and contextBudget.contextWindow is not set.',
      });
    } finally {
      await Promise.all([withWindow.close(), configured.close(), without.close()]);
    }
  });

  it("describes the model a resolver resolved once a Run has called it", async () => {
    const resolved = scriptedModel([{ text: "ok" }], { specifier: "resolved", contextWindow: 9_000 });
    const { session, close } = await openOnOwnRunner({
      agent: defineAgent("test.models", { model: "app/chat" }),
      plugins: [plugin("resolver", (host) => host.registerModelResolver({ resolve: () => resolved }))],
    });
    try {
      expect(session.inspect().compaction).toMatchObject({
        automatic: false,
        reason: expect.stringContaining("resolved per request"),
      });
      await session.run("hi").result;
      expect(session.inspect().compaction).toEqual({
        automatic: true,
        contextWindow: 9_000,
        source: "model",
        model: "resolved",
      });
    } finally {
      await close();
    }
  });

  it("never compacts a windowless model on its own", async () => {
    const model = windowless("plain", "answer");
    const session = await openSession({ agent: defineAgent("test.models", { model }) });
    try {
      // Far past any window a guess could pick: still sent whole, no summary request.
      for (const turn of [1, 2, 3]) await session.run(`${turn}: ${"x".repeat(600_000)}`).result;
    } finally {
      await session.close();
    }
    expect(model.calls).toHaveLength(3);
    expect(model.calls[2]?.messages).toHaveLength(5);
  });
});
