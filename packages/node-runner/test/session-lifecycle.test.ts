import {
  type ContentBlock,
  defineAgent,
  defineTool,
  type ModelBinding,
  type ModelStreamEvent,
  type TurnContext,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  AbortedError,
  createNodeRunner,
  MaxTurnsError,
  ModelCallError,
  openSession,
  ParamsError,
  RunAbortedError,
  SessionLockedError,
  SessionStateError,
} from "../src/index.js";
import { cleanupAfterEach, collect, latch, macrotasks, rejection, spyPlugin, thrown } from "./support/index.ts";

/** A model that replays a fixed list of stream events, for contract violations the scripted model cannot make. */
function rawModel(events: () => AsyncIterable<ModelStreamEvent>): ModelBinding {
  return { specifier: "test/raw", contextWindow: 1000, stream: () => events() };
}

const image: ContentBlock = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" };
const providerBlock: ContentBlock = { type: "provider", provider: "test", data: { signature: "abc", n: 1 } };

const cleanups = cleanupAfterEach();
const { closeLater } = cleanups;

/** A tool that waits on a latch the test releases. */
function gatedTool(name = "gated") {
  const started = latch();
  const release = latch<string>();
  const tool = defineTool({
    name,
    description: "Waits for the test",
    readOnly: true,
    execute: async () => {
      started.resolve();
      return await release.promise;
    },
  });
  cleanups.push(() => release.resolve("released by cleanup"));
  return { tool, started, release };
}

describe("one Run at a time", () => {
  it("refuses a second Run while one is active with run_active", async () => {
    const gate = gatedTool();
    const model = scriptedModel([
      { toolCalls: [{ name: "gated", input: {} }] },
      { text: "first done" },
      { text: "second done" },
    ]);
    const agent = defineAgent("life.one-run", { model, tools: [gate.tool] });
    const session = closeLater(await openSession({ agent }));
    const first = session.run("First");
    await gate.started.promise;

    const error = thrown(() => session.run("Second"));
    expect(error).toBeInstanceOf(SessionStateError);
    expect(error).toMatchObject({ code: "run_active" });
    // The refused call did not disturb the active Run.
    gate.release.resolve("gate open");
    await expect(first.result).resolves.toMatchObject({ text: "first done" });
    await expect(session.run("Second").result).resolves.toMatchObject({ text: "second done" });
    model.assertComplete();
  });

  it("accepts the next Run as soon as the previous result has been awaited", async () => {
    const model = scriptedModel([
      { text: "one" },
      { error: new Error("model down") },
      { text: "three" },
      { text: "four", hang: true },
      { text: "five" },
    ]);
    const agent = defineAgent("life.back-to-back", { model });
    const session = closeLater(await openSession({ agent }));

    await session.run("1").result;
    // Right after a completed Run's result resolves.
    const second = session.run("2");
    let failed = false;
    try {
      await second.result;
    } catch {
      failed = true;
      // Right after a failed Run's result rejects.
      await expect(session.run("3").result).resolves.toMatchObject({ text: "three" });
    }
    expect(failed).toBe(true);
    const controller = new AbortController();
    const fourth = session.run("4", { signal: controller.signal });
    const iterator = fourth[Symbol.asyncIterator]();
    // run-start, turn-start, then the text delta before the hang.
    for (let index = 0; index < 3; index++) await iterator.next();
    controller.abort();
    let aborted = false;
    try {
      await fourth.result;
    } catch (error) {
      aborted = true;
      expect(error).toBeInstanceOf(RunAbortedError);
      // Right after an aborted Run's result rejects.
      await expect(session.run("5").result).resolves.toMatchObject({ text: "five" });
    }
    expect(aborted).toBe(true);
    model.assertComplete();
  });
});

describe("closing a Session", () => {
  it("refuses run() after close with session_closed", async () => {
    const agent = defineAgent("life.closed", { model: scriptedModel([]) });
    const session = await openSession({ agent });
    await session.close();
    const error = thrown(() => session.run("Too late"));
    expect(error).toBeInstanceOf(SessionStateError);
    expect(error).toMatchObject({ code: "session_closed" });
  });

  it("refuses run() as soon as close has been called, while the active Run finishes", async () => {
    const gate = gatedTool();
    const model = scriptedModel([{ toolCalls: [{ name: "gated", input: {} }] }, { text: "finished" }]);
    const agent = defineAgent("life.closing", { model, tools: [gate.tool] });
    const session = await openSession({ agent });
    const run = session.run("Work");
    await gate.started.promise;
    const closed = session.close();
    expect(thrown(() => session.run("More"))).toMatchObject({ code: "session_closed" });
    gate.release.resolve("ok");
    await expect(run.result).resolves.toMatchObject({ text: "finished" });
    await closed;
  });

  it("waits for the active Run to settle, which then completes normally", async () => {
    const gate = gatedTool();
    const model = scriptedModel([{ toolCalls: [{ name: "gated", input: {} }] }, { text: "all done" }]);
    const agent = defineAgent("life.close-waits", { model, tools: [gate.tool] });
    const session = await openSession({ agent });
    const run = session.run("Work");
    const eventsDone = collect(run);
    await gate.started.promise;

    let closeSettled = false;
    const closed = session.close().then(() => {
      closeSettled = true;
    });
    // Let every queued callback (microtasks and I/O-phase callbacks) run, several rounds over.
    await macrotasks(5);
    expect(closeSettled).toBe(false);
    expect(session.signal.aborted).toBe(false);

    gate.release.resolve("gate result");
    const result = await run.result;
    await closed;
    expect(closeSettled).toBe(true);
    expect(result).toMatchObject({ text: "all done", turns: 2 });
    const events = await eventsDone;
    expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "completed" });
    const toolEnd = events.find((event) => event.kind === "tool-end");
    expect(toolEnd).toMatchObject({ result: { content: [{ type: "text", text: "gate result" }], isError: false } });
    model.assertComplete();
  });

  it("is idempotent and aborts session.signal", async () => {
    const approval = spyPlugin("test.approval");
    const agent = defineAgent("life.idempotent", { model: scriptedModel([]) });
    const session = await openSession({ agent, approval });
    expect(session.signal.aborted).toBe(false);

    await Promise.all([session.close(), session.close()]);
    await session.close();
    expect(session.signal.aborted).toBe(true);
    expect(session.signal.reason).toMatchObject({ code: "session_closed" });
    expect(approval.applied).toBe(1);
    expect(approval.closed).toBe(1);
  });
});

describe("Run input", () => {
  it("rejects an empty array, malformed blocks and non-text values with input_invalid", async () => {
    const model = scriptedModel([{ text: "fine" }]);
    const agent = defineAgent("life.input", { model });
    const session = closeLater(await openSession({ agent }));

    for (const input of [
      [],
      [{ type: "text" }],
      [{ type: "unknown", text: "x" }],
      42,
      null,
      { type: "text", text: "x" },
    ]) {
      const error = thrown(() => session.run(input as never));
      expect(error).toMatchObject({ code: "input_invalid" });
    }
    expect(model.requests).toHaveLength(0);
    // A refused input leaves no Run active.
    await expect(session.run("valid").result).resolves.toMatchObject({ text: "fine" });
  });

  it("sends content block inputs to the model in order, as given", async () => {
    const model = scriptedModel([{ text: "I see a picture." }]);
    const agent = defineAgent("life.blocks", { model });
    const session = closeLater(await openSession({ agent }));
    const input: ContentBlock[] = [{ type: "text", text: "What is this?" }, image];
    const run = session.run(input);
    const events = await collect(run);
    await run.result;

    expect(events[0]).toMatchObject({ kind: "run-start", input });
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: input }]);
  });

  it("sends a string input as one text block", async () => {
    const model = scriptedModel([{ text: "hi" }]);
    const agent = defineAgent("life.string", { model });
    const session = closeLater(await openSession({ agent }));
    await session.run("Hello there").result;
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hello there" }] }]);
  });
});

describe("Run results", () => {
  it("keeps image and provider blocks in content and derives text from text blocks only", async () => {
    const model = scriptedModel([{ text: "Here it is.", content: [image, providerBlock] }]);
    const agent = defineAgent("life.content", { model });
    const session = closeLater(await openSession({ agent }));
    const run = session.run("Draw");
    const events = await collect(run);
    const result = await run.result;

    expect(result.content).toEqual([{ type: "text", text: "Here it is." }, image, providerBlock]);
    expect(result.text).toBe("Here it is.");
    expect(result.runId).toBe(run.id);
    expect(events.filter((event) => event.kind === "assistant-content").map((event) => event.kind)).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "completed", result });
  });

  it("gives an image-only reply empty text but its content", async () => {
    const model = scriptedModel([{ content: [image] }]);
    const agent = defineAgent("life.image-only", { model });
    const session = closeLater(await openSession({ agent }));
    const result = await session.run("Just the picture").result;
    expect(result.content).toEqual([image]);
    expect(result.text).toBe("");
  });

  it("keeps text on either side of a block as separate blocks and joins them in text", async () => {
    const model = rawModel(async function* () {
      yield { type: "text-delta", text: "Before " };
      yield { type: "text-delta", text: "image." };
      yield { type: "content", block: image };
      yield { type: "text-delta", text: " After." };
      yield { type: "finish", stopReason: "end" };
    });
    const agent = defineAgent("life.interleaved", { model });
    const session = closeLater(await openSession({ agent }));
    const result = await session.run("Go").result;
    expect(result.content).toEqual([{ type: "text", text: "Before image." }, image, { type: "text", text: " After." }]);
    expect(result.text).toBe("Before image. After.");
  });
});

describe("failed Runs", () => {
  it("rejects a model stream error with model_failed, its cause, and a failed run-end", async () => {
    const boom = new Error("upstream exploded");
    const model = scriptedModel([{ text: "Partial", error: boom }]);
    const agent = defineAgent("life.model-error", { model });
    const session = closeLater(await openSession({ agent }));
    const run = session.run("Go");
    const events = await collect(run);
    const error = await rejection(run.result);

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ code: "model_failed" });
    expect((error as Error).cause).toBe(boom);
    expect((error as Error).message).toContain("upstream exploded");
    expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed", error: { code: "model_failed" } });
    expect(events.some((event) => event.kind === "assistant-message")).toBe(false);
  });

  it("rejects a stream that ends without finish with model_failed", async () => {
    const model = rawModel(async function* () {
      yield { type: "text-delta", text: "I was cut" };
    });
    const agent = defineAgent("life.no-finish", { model });
    const session = closeLater(await openSession({ agent }));
    const run = session.run("Go");
    const events = await collect(run);
    const error = await rejection(run.result);
    expect(error).toMatchObject({ code: "model_failed" });
    expect((error as Error).message).toMatch(/without finishing/);
    expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed", error: { code: "model_failed" } });
  });

  it("rejects a stream that throws (breaking the adapter contract) with model_failed and its cause", async () => {
    const thrownError = new Error("adapter bug");
    const model = rawModel(async function* () {
      yield { type: "text-delta", text: "a" };
      throw thrownError;
    });
    const agent = defineAgent("life.stream-throws", { model });
    const session = closeLater(await openSession({ agent }));
    const error = await rejection(session.run("Go").result);
    expect(error).toMatchObject({ code: "model_failed" });
    expect((error as Error).cause).toBe(thrownError);
  });

  it("stops at maxTurns with max_turns", async () => {
    const echo = defineTool({ name: "echo", description: "Echo", readOnly: true, execute: () => "again" });
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", input: {} }] },
      { toolCalls: [{ name: "echo", input: {} }] },
      { text: "never reached" },
    ]);
    const agent = defineAgent("life.max-turns", { model, tools: [echo] });
    const runner = await createNodeRunner({ agent, limits: { maxTurns: 2 } });
    cleanups.push(() => runner.close());
    const session = await runner.createSession();
    const run = session.run("Loop");
    const events = await collect(run);
    const error = await rejection(run.result);

    expect(error).toBeInstanceOf(MaxTurnsError);
    expect(error).toMatchObject({ code: "max_turns" });
    expect(model.requests).toHaveLength(2);
    expect(model.remaining).toBe(1);
    expect(events.filter((event) => event.kind === "turn-start")).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed", error: { code: "max_turns" } });
    // Both turns' calls were settled before the limit stopped the Run.
    expect(events.filter((event) => event.kind === "tool-end")).toHaveLength(2);
  });
});

describe("opening a Session", () => {
  it("rejects an already-aborted signal before any plugin is applied", async () => {
    const approval = spyPlugin("test.approval");
    const agent = defineAgent("life.pre-aborted", { model: scriptedModel([]) });
    const error = await rejection(openSession({ agent, approval, signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ code: "aborted", name: "AbortError" });
    expect(approval.applied).toBe(0);
    expect(approval.closed).toBe(0);
  });

  it("closes the approval plugin when opening fails (unknown model name)", async () => {
    const approval = spyPlugin("test.approval");
    const agent = defineAgent("life.unknown-model", { model: "app/missing" });
    const error = await rejection(openSession({ agent, approval }));
    expect(error).toMatchObject({ code: "model_not_found" });
    expect(approval.applied).toBe(1);
    expect(approval.closed).toBe(1);
  });

  it("closes the approval plugin when the params are invalid", async () => {
    const approval = spyPlugin("test.approval");
    const agent = defineAgent("life.params-cleanup", { model: scriptedModel([]), params: ["workspace"] });
    const error = await rejection(openSession({ agent, approval }));
    expect(error).toMatchObject({ code: "params_invalid" });
    expect(approval.closed).toBe(1);
  });

  it("rejects a second open of the same Session id in one Runner with session_locked", async () => {
    const agent = defineAgent("life.locked", { model: scriptedModel([]) });
    const runner = await createNodeRunner({ agent });
    cleanups.push(() => runner.close());
    const first = await runner.createSession({ id: "shared" });
    const error = await rejection(runner.createSession({ id: "shared" }));
    expect(error).toBeInstanceOf(SessionLockedError);
    expect(error).toMatchObject({ code: "session_locked" });

    // Once closed, the id can be opened again.
    await first.close();
    const again = await runner.createSession({ id: "shared" });
    expect(again.id).toBe("shared");
    await again.close();
  });

  it("rejects concurrent opens of the same Session id with session_locked", async () => {
    const agent = defineAgent("life.locked-concurrent", { model: scriptedModel([]) });
    const runner = await createNodeRunner({ agent });
    cleanups.push(() => runner.close());
    const results = await Promise.allSettled([
      runner.createSession({ id: "race" }),
      runner.createSession({ id: "race" }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((result) => result.status === "rejected");
    expect(rejected?.status === "rejected" && rejected.reason).toMatchObject({ code: "session_locked" });
  });
});

describe("Session params", () => {
  it("rejects missing declared params with params_invalid", async () => {
    const agent = defineAgent("life.params-missing", { model: scriptedModel([]), params: ["workspace", "user"] });
    for (const params of [undefined, {}, { workspace: "/w" }]) {
      const error = await rejection(openSession({ agent, ...(params ? { params } : {}) }));
      expect(error).toBeInstanceOf(ParamsError);
      expect(error).toMatchObject({ code: "params_invalid" });
    }
    expect(((await rejection(openSession({ agent, params: { workspace: "/w" } }))) as Error).message).toContain(
      '"user"',
    );
  });

  it("rejects params that are not JSON with params_invalid", async () => {
    const agent = defineAgent("life.params-json", { model: scriptedModel([]) });
    const invalid: unknown[] = [
      { callback: () => 1 },
      { when: new Date(0) },
      { count: Number.NaN },
      { nested: { infinite: Number.POSITIVE_INFINITY } },
      { missing: undefined },
      { list: [1, new Map()] },
      "a string",
      ["an", "array"],
      null,
    ];
    for (const params of invalid) {
      const error = await rejection(openSession({ agent, params }));
      expect(error, `params ${String(params)}`).toMatchObject({ code: "params_invalid" });
    }
  });

  it("deeply freezes params and gives them to tools, section functions and enabled", async () => {
    const seen: { tool?: unknown; section?: unknown; enabled?: unknown } = {};
    const whoami = defineTool({
      name: "whoami",
      description: "Reports the workspace",
      readOnly: true,
      execute: (_input, ctx) => {
        seen.tool = ctx.params;
        return `workspace ${String(ctx.params.workspace)}`;
      },
    });
    const hidden = defineTool({
      name: "admin_only",
      description: "Shown only to admins",
      readOnly: true,
      enabled: (ctx: TurnContext) => {
        seen.enabled = ctx.params;
        return ctx.params.admin === true;
      },
      execute: () => "admin",
    });
    const model = scriptedModel([{ toolCalls: [{ name: "whoami", input: {} }] }, { text: "done" }]);
    const agent = defineAgent("life.params-frozen", {
      model,
      params: ["workspace"],
      tools: [whoami, hidden],
      instructions: {
        base: "You help.",
        where: (ctx) => {
          seen.section = ctx.params;
          return `Workspace: ${String(ctx.params.workspace)}`;
        },
      },
    });
    const params = { workspace: "/repo", admin: false, nested: { list: [1, { deep: true }] } };
    const session = closeLater(await openSession({ agent, params }));
    // The Session holds a copy: changing the caller's object afterwards has no effect.
    params.workspace = "/elsewhere";
    params.nested.list.push(2);

    expect(session.params).toEqual({ workspace: "/repo", admin: false, nested: { list: [1, { deep: true }] } });
    expect(Object.isFrozen(session.params)).toBe(true);
    const nested = session.params.nested as { list: unknown[] };
    expect(Object.isFrozen(nested)).toBe(true);
    expect(Object.isFrozen(nested.list)).toBe(true);
    expect(Object.isFrozen(nested.list[1])).toBe(true);
    expect(() => {
      (session.params as Record<string, unknown>).workspace = "/changed";
    }).toThrow(TypeError);

    const run = session.run("Who am I?");
    const events = await collect(run);
    await run.result;
    expect(model.requests[0]?.system).toBe("You help.\n\nWorkspace: /repo");
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["whoami"]);
    expect(events.find((event) => event.kind === "tool-end")).toMatchObject({
      result: { content: [{ type: "text", text: "workspace /repo" }] },
    });
    for (const value of [seen.tool, seen.section, seen.enabled]) {
      expect(value).toEqual(session.params);
      expect(Object.isFrozen(value)).toBe(true);
    }
  });
});
