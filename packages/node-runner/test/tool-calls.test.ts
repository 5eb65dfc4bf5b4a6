import {
  type Agent,
  type ContentBlock,
  defineAgent,
  defineTool,
  type JsonValue,
  type ToolContext,
  type ToolOutput,
  type ToolReceipt,
  type ToolResult,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner, openSession, type PermissionPreset, ToolExecutionHostError } from "../src/index.js";
import { drain, type Latch, latch, macrotasks, textOf, toolMessages } from "./support/index.ts";

/** Opens one Session of `agent` on a fresh Runner, runs `input` to its end, and closes. */
async function runOnce(agent: Agent, input: string, permissions: PermissionPreset = "full-access") {
  const runner = await createNodeRunner({ agent, permissions });
  try {
    const session = await runner.createSession();
    const run = session.run(input);
    const drained = await drain(run);
    return { ...drained, run, session };
  } finally {
    await runner.close();
  }
}

/**
 * Waits for `started`. If the tools ran one at a time this would never resolve; instead of
 * hanging until the test timeout, the wait gives up (failing the tool, and so the assertion)
 * after a generous bound. Passing never depends on this timer.
 */
async function awaitOther(started: Latch, who: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${who} waited for the other tool, which never started`)), 10_000);
  });
  try {
    await Promise.race([started.promise, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

const objectSchema = { type: "object", properties: { n: { type: "integer" } } } as const;

describe("scheduling a batch of tool calls", () => {
  it("runs read-only calls of one batch in parallel", async () => {
    const startedA = latch();
    const startedB = latch();
    const waitsFor = { a: startedB, b: startedA };
    const started = { a: startedA, b: startedB };
    const make = (name: "a" | "b") =>
      defineTool({
        name,
        description: `read-only ${name}`,
        readOnly: true,
        execute: async () => {
          started[name].resolve();
          await awaitOther(waitsFor[name], name);
          return `${name} saw the other start`;
        },
      });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "a", input: {} },
          { name: "b", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = defineAgent("test.parallel", { model, tools: [make("a"), make("b")] });
    const { error } = await runOnce(agent, "go", "read-only");
    expect(error).toBeUndefined();
    const results = toolMessages(model.requests[1]?.messages);
    expect(results.map((result) => [result.toolName, result.isError, textOf(result)])).toEqual([
      ["a", false, "a saw the other start"],
      ["b", false, "b saw the other start"],
    ]);
  });

  it("runs non-read-only calls one at a time, in call order", async () => {
    const log: string[] = [];
    const write = defineTool({
      name: "write",
      description: "writes",
      inputSchema: objectSchema,
      execute: async ({ n }: { n: number }) => {
        log.push(`start ${n}`);
        // The first call takes longest: were the calls concurrent, later ones would end first.
        await macrotasks(4 - n);
        log.push(`end ${n}`);
        return `wrote ${n}`;
      },
    });
    const model = scriptedModel([
      { toolCalls: [1, 2, 3].map((n) => ({ name: "write", input: { n } })) },
      { text: "done" },
    ]);
    const agent = defineAgent("test.exclusive", { model, tools: [write] });
    const { events, error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    // Each call is started only after the previous one has settled.
    expect(
      events
        .filter((event) => event.kind === "tool-start" || event.kind === "tool-end")
        .map((event) => `${event.kind} ${"toolCallId" in event ? event.toolCallId : ""}`),
    ).toEqual([
      "tool-start call_1",
      "tool-end call_1",
      "tool-start call_2",
      "tool-end call_2",
      "tool-start call_3",
      "tool-end call_3",
    ]);
  });

  it("keeps order semantics in a mixed batch [ro, ro, write, ro]", async () => {
    const log: string[] = [];
    const startedR1 = latch();
    const startedR2 = latch();
    const r1 = defineTool({
      name: "r1",
      description: "read 1",
      readOnly: true,
      execute: async () => {
        log.push("start r1");
        startedR1.resolve();
        await awaitOther(startedR2, "r1");
        await macrotasks(2);
        log.push("end r1");
        return "r1";
      },
    });
    const r2 = defineTool({
      name: "r2",
      description: "read 2",
      readOnly: true,
      execute: async () => {
        log.push("start r2");
        startedR2.resolve();
        await awaitOther(startedR1, "r2");
        log.push("end r2");
        return "r2";
      },
    });
    const w = defineTool({
      name: "w",
      description: "write",
      execute: async () => {
        log.push("start w");
        await macrotasks(3);
        log.push("end w");
        return "w";
      },
    });
    const r3 = defineTool({
      name: "r3",
      description: "read 3",
      readOnly: true,
      execute: async () => {
        log.push("start r3");
        await macrotasks(1);
        log.push("end r3");
        return "r3";
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "r1", input: {} },
          { name: "r2", input: {} },
          { name: "w", input: {} },
          { name: "r3", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = defineAgent("test.mixed", { model, tools: [r1, r2, w, r3] });
    const { error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    const at = (entry: string) => {
      const index = log.indexOf(entry);
      expect(index, entry).toBeGreaterThanOrEqual(0);
      return index;
    };
    // r1 and r2 overlap (each waited for the other to start).
    expect(at("start r2")).toBeLessThan(at("end r1"));
    expect(at("start r1")).toBeLessThan(at("end r2"));
    // The write runs alone, after both reads before it and before the read after it.
    expect(at("start w")).toBeGreaterThan(at("end r1"));
    expect(at("start w")).toBeGreaterThan(at("end r2"));
    expect(at("start r3")).toBeGreaterThan(at("end w"));
    expect(log).toHaveLength(8);
    // Results in call order, regardless of completion order (r2 ended before r1).
    expect(at("end r2")).toBeLessThan(at("end r1"));
    expect(toolMessages(model.requests[1]?.messages).map((result) => textOf(result))).toEqual(["r1", "r2", "w", "r3"]);
  });

  it("delivers results to the model and tool-end events in call order", async () => {
    const release = latch();
    const slow = defineTool({
      name: "slow",
      description: "finishes last",
      readOnly: true,
      execute: async () => {
        await release.promise;
        return "slow result";
      },
    });
    const fast = defineTool({
      name: "fast",
      description: "finishes first",
      readOnly: true,
      execute: async () => {
        release.resolve();
        return "fast result";
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "slow", input: {} },
          { name: "fast", input: {} },
          { name: "nope", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = defineAgent("test.result-order", { model, tools: [slow, fast] });
    const { events } = await runOnce(agent, "go");
    const results = toolMessages(model.requests[1]?.messages);
    expect(results.map((result) => [result.toolCallId, result.toolName, result.isError])).toEqual([
      ["call_1", "slow", false],
      ["call_2", "fast", false],
      ["call_3", "nope", true],
    ]);
    expect(
      events
        .filter((event) => event.kind === "tool-end")
        .map((event) => ("toolCallId" in event ? event.toolCallId : "")),
    ).toEqual(["call_1", "call_2", "call_3"]);
    // The model's next request holds the whole exchange, in order.
    expect(model.requests[1]?.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "tool",
    ]);
  });
});

describe("tool failures and unavailable tools", () => {
  it("a tool that throws gives an error result the model reads, and the Run continues", async () => {
    const boom = defineTool({
      name: "boom",
      description: "fails",
      execute: () => {
        throw new Error("disk full");
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "boom", input: {} }] }, { text: "recovered" }]);
    const agent = defineAgent("test.throws", { model, tools: [boom] });
    const { events, error, run } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    expect((await run.result).text).toBe("recovered");
    expect((await run.result).turns).toBe(2);
    const result = toolMessages(model.requests[1]?.messages)[0];
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toContain("disk full");
    expect(events.find((event) => event.kind === "tool-end")).toMatchObject({
      toolName: "boom",
      result: { isError: true },
    });
  });

  it("an async tool that rejects with a non-Error value is reported the same way", async () => {
    const boom = defineTool({
      name: "boom",
      description: "fails",
      execute: async () => Promise.reject("just a string"),
    });
    const model = scriptedModel([{ toolCalls: [{ name: "boom", input: {} }] }, { text: "recovered" }]);
    const agent = defineAgent("test.rejects", { model, tools: [boom] });
    const { error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    const result = toolMessages(model.requests[1]?.messages)[0];
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toContain("just a string");
  });

  it("hides a tool with enabled: false: absent from requests, and a call to it is not executed", async () => {
    let executed = 0;
    const hidden = defineTool({
      name: "hidden",
      description: "secret",
      readOnly: true,
      enabled: false,
      execute: () => {
        executed++;
        return "ran";
      },
    });
    const shown = defineTool({ name: "shown", description: "visible", readOnly: true, execute: () => "shown" });
    const model = scriptedModel([{ toolCalls: [{ name: "hidden", input: {} }] }, { text: "ok" }]);
    const agent = defineAgent("test.hidden", { model, tools: [hidden, shown] });
    const { events, error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["shown"]);
    expect(executed).toBe(0);
    expect(events.some((event) => event.kind === "tool-permission" || event.kind === "tool-start")).toBe(false);
    const result = toolMessages(model.requests[1]?.messages)[0];
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toContain('"hidden" is not available');
  });

  it("evaluates an enabled function each turn: a stale call to a now-hidden tool is not executed", async () => {
    const executed: number[] = [];
    const seenTurns: number[] = [];
    const once = defineTool({
      name: "once",
      description: "only on the first turn",
      readOnly: true,
      enabled: (ctx) => {
        seenTurns.push(ctx.turn);
        return ctx.turn === 1;
      },
      execute: (_input: JsonValue, ctx: ToolContext) => {
        executed.push(ctx.turn);
        return "ran";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "once", input: {} }] },
      { toolCalls: [{ name: "once", input: {} }] },
      { text: "done" },
    ]);
    const agent = defineAgent("test.enabled-fn", { model, tools: [once] });
    const { error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    expect(model.requests.map((request) => request.tools.map((tool) => tool.name))).toEqual([["once"], [], []]);
    expect(executed).toEqual([1]);
    expect(seenTurns).toEqual(expect.arrayContaining([1, 2, 3]));
    const second = toolMessages(model.requests[2]?.messages);
    expect(second.map((result) => result.isError)).toEqual([false, true]);
    expect(textOf(second[1])).toContain("not available");
  });

  it("answers an unknown tool name with an error result and carries on", async () => {
    const model = scriptedModel([{ toolCalls: [{ name: "does_not_exist", input: { x: 1 } }] }, { text: "ok" }]);
    const echo = defineTool({ name: "echo", description: "echo", readOnly: true, execute: () => "echo" });
    const agent = defineAgent("test.unknown-tool", { model, tools: [echo] });
    const { events, error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    expect(events.some((event) => event.kind === "tool-permission")).toBe(false);
    const result = toolMessages(model.requests[1]?.messages)[0];
    expect(result).toMatchObject({ toolCallId: "call_1", toolName: "does_not_exist", isError: true });
    expect(textOf(result)).toContain("does_not_exist");
    expect(textOf(result)).toContain("echo");
  });
});

describe("normalizing tool output", () => {
  const image: ContentBlock = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" };
  const cases: Array<[string, ToolOutput, ToolResult]> = [
    ["a string", "plain text", { content: [{ type: "text", text: "plain text" }], isError: false }],
    [
      "content blocks",
      [{ type: "text", text: "see image" }, image],
      { content: [{ type: "text", text: "see image" }, image], isError: false },
    ],
    [
      "{ content: string, isError: true }",
      { content: "not found", isError: true },
      { content: [{ type: "text", text: "not found" }], isError: true },
    ],
    [
      "{ content: blocks }",
      { content: [{ type: "text", text: "fine" }] },
      { content: [{ type: "text", text: "fine" }], isError: false },
    ],
    [
      "a JSON object",
      { answer: 42, tags: ["a", "b"], nested: { ok: true } },
      {
        content: [{ type: "text", text: JSON.stringify({ answer: 42, tags: ["a", "b"], nested: { ok: true } }) }],
        isError: false,
      },
    ],
    ["a JSON array of values", [1, 2, 3], { content: [{ type: "text", text: "[1,2,3]" }], isError: false }],
    ["a number", 7, { content: [{ type: "text", text: "7" }], isError: false }],
    ["undefined", undefined, { content: [], isError: false }],
    ["null", null, { content: [], isError: false }],
  ];

  it.each(cases)("normalizes %s", async (_name, output, expected) => {
    const tool = defineTool({ name: "produce", description: "returns a value", readOnly: true, execute: () => output });
    const model = scriptedModel([{ toolCalls: [{ name: "produce", input: {} }] }, { text: "ok" }]);
    const agent = defineAgent("test.normalize", { model, tools: [tool] });
    const { events, error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    const end = events.find((event) => event.kind === "tool-end");
    expect(end).toMatchObject({ result: expected });
    expect(toolMessages(model.requests[1]?.messages)[0]).toEqual({
      role: "tool",
      toolCallId: "call_1",
      toolName: "produce",
      content: expected.content,
      isError: expected.isError,
    });
  });
});

describe("the tool context", () => {
  it("carries sessionId, runId, turn, toolCallId, toolName, agent and params", async () => {
    const contexts: ToolContext[] = [];
    const inspect = defineTool({
      name: "inspect",
      description: "records its context",
      readOnly: true,
      execute: (_input: JsonValue, ctx: ToolContext) => {
        contexts.push(ctx);
        return "inspected";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "inspect", input: {} }] },
      { toolCalls: [{ name: "inspect", input: {}, id: "custom-id" }] },
      { text: "done" },
    ]);
    const agent = defineAgent("test.context", { model, tools: [inspect], params: ["user"] });
    const runner = await createNodeRunner({ agent, permissions: "ask-on-write" });
    try {
      const session = await runner.createSession({ id: "ctx-session", params: { user: "ann" } });
      const run = session.run("go");
      const { error } = await drain(run);
      expect(error).toBeUndefined();
      expect(contexts).toHaveLength(2);
      expect(contexts.map((ctx) => [ctx.turn, ctx.toolCallId])).toEqual([
        [1, "call_1"],
        [2, "custom-id"],
      ]);
      for (const ctx of contexts) {
        expect(ctx.sessionId).toBe("ctx-session");
        expect(ctx.runId).toBe(run.id);
        expect(ctx.toolName).toBe("inspect");
        expect(ctx.agent).toEqual({ id: "test.context" });
        expect(ctx.params).toEqual({ user: "ann" });
        expect(Object.isFrozen(ctx.params)).toBe(true);
        expect(ctx.signal).toBeInstanceOf(AbortSignal);
        expect(ctx.signal.aborted).toBe(false);
      }
    } finally {
      await runner.close();
    }
  });

  it("ctx.toolCalls(name) returns receipts of earlier calls: input, result, ok, runId, turn", async () => {
    const snapshots: Array<{ runId: string; turn: number; receipts: readonly ToolReceipt[] }> = [];
    const echo = defineTool({
      name: "echo",
      description: "echo",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      readOnly: true,
      execute: ({ text }: { text: string }) => `echo: ${text}`,
    });
    const history = defineTool({
      name: "history",
      description: "reads earlier echo calls",
      readOnly: true,
      execute: (_input: JsonValue, ctx: ToolContext) => {
        snapshots.push({ runId: ctx.runId, turn: ctx.turn, receipts: ctx.toolCalls("echo") });
        return `${ctx.toolCalls("echo").length} earlier`;
      },
    });
    const model = scriptedModel([
      // Run 1, turn 1: a valid and an invalid echo call.
      {
        toolCalls: [
          { name: "echo", input: { text: "one" } },
          { name: "echo", input: {} },
        ],
      },
      // Run 1, turn 2: history sees both receipts.
      { toolCalls: [{ name: "history", input: {} }] },
      { text: "run one done" },
      // Run 2, turn 1: another echo and history in later batches.
      { toolCalls: [{ name: "echo", input: { text: "two" } }] },
      { toolCalls: [{ name: "history", input: {} }] },
      { text: "run two done" },
    ]);
    const agent = defineAgent("test.receipts", { model, tools: [echo, history] });
    const runner = await createNodeRunner({ agent, permissions: "ask-on-write" });
    try {
      const session = await runner.createSession();
      const first = session.run("first");
      expect((await drain(first)).error).toBeUndefined();
      const second = session.run("second");
      expect((await drain(second)).error).toBeUndefined();

      expect(snapshots.map((snapshot) => [snapshot.runId, snapshot.turn, snapshot.receipts.length])).toEqual([
        [first.id, 2, 2],
        [second.id, 2, 3],
      ]);
      const [valid, invalid, later] = snapshots[1]?.receipts ?? [];
      expect(valid).toEqual({
        toolCallId: "call_1",
        name: "echo",
        input: { text: "one" },
        result: { content: [{ type: "text", text: "echo: one" }], isError: false },
        ok: true,
        runId: first.id,
        turn: 1,
      });
      expect(invalid).toMatchObject({
        toolCallId: "call_2",
        name: "echo",
        input: {},
        ok: false,
        runId: first.id,
        turn: 1,
        result: { isError: true },
      });
      expect(textOf(invalid?.result)).toContain("Invalid input");
      expect(later).toMatchObject({ name: "echo", input: { text: "two" }, ok: true, runId: second.id, turn: 1 });
      // Receipts are frozen Session facts; what a tool got is a snapshot it cannot alter.
      expect(Object.isFrozen(valid)).toBe(true);
      expect(Object.isFrozen(snapshots[0]?.receipts)).toBe(true);
      expect(snapshots[0]?.receipts).toHaveLength(2);
      // Other names have their own receipts.
      expect(snapshots[0]?.receipts.every((receipt) => receipt.name === "echo")).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it("a tool cannot alter the Session's receipts through ctx.toolCalls", async () => {
    const counts: number[] = [];
    const echo = defineTool({ name: "echo", description: "echo", readOnly: true, execute: () => "echo" });
    const tamper = defineTool({
      name: "tamper",
      description: "tries to rewrite history",
      readOnly: true,
      execute: (_input: JsonValue, ctx: ToolContext) => {
        const receipts = ctx.toolCalls("echo") as ToolReceipt[];
        counts.push(receipts.length);
        try {
          receipts.length = 0;
        } catch {
          // A frozen array refuses; either way the Session's receipts must survive.
        }
        counts.push(ctx.toolCalls("echo").length);
        return "tampered";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", input: {} }] },
      { toolCalls: [{ name: "tamper", input: {} }] },
      { text: "done" },
    ]);
    const agent = defineAgent("test.tamper", { model, tools: [echo, tamper] });
    const { error } = await runOnce(agent, "go");
    expect(error).toBeUndefined();
    expect(counts).toEqual([1, 1]);
  });

  it("records a denied call as a receipt with ok: false", async () => {
    let receipts: readonly ToolReceipt[] = [];
    const write = defineTool({ name: "write", description: "writes", execute: () => "written" });
    const history = defineTool({
      name: "history",
      description: "reads earlier write calls",
      readOnly: true,
      execute: (_input: JsonValue, ctx: ToolContext) => {
        receipts = ctx.toolCalls("write");
        return "ok";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "write", input: {} }] },
      { toolCalls: [{ name: "history", input: {} }] },
      { text: "done" },
    ]);
    const agent = defineAgent("test.denied-receipt", { model, tools: [write, history] });
    const { error } = await runOnce(agent, "go", "read-only");
    expect(error).toBeUndefined();
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ name: "write", ok: false, turn: 1, result: { isError: true } });
    expect(textOf(receipts[0]?.result)).toContain("Permission denied");
  });
});

describe("a host failure inside a tool", () => {
  it("is reported as the host's failure, not the tool's work", async () => {
    const tool = defineTool({
      name: "run_it",
      description: "Run it",
      execute: (_input, ctx) => {
        throw new ToolExecutionHostError("the sandbox worker crashed", {
          toolName: ctx.toolName,
          toolCallId: ctx.toolCallId,
        });
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "run_it", input: {} }] }, { text: "ok" }]);
    const session = await openSession({
      agent: defineAgent("test.host-failure", { model, tools: [tool] }),
      permissions: "full-access",
    });
    try {
      await session.run("go").result;
      const message = toolMessages(model.requests[1]?.messages)[0];
      expect(message?.isError).toBe(true);
      expect(textOf(message)).toBe(
        'tool_execution_host_error: The host failed while running "run_it"; this is not a failure of what was asked: the sandbox worker crashed',
      );
    } finally {
      await session.close();
    }
  });
});
