import { readdir } from "node:fs/promises";
import {
  type Agent,
  defineAgent,
  defineCapability,
  defineTool,
  type JsonValue,
  type StateView,
} from "@castellan/harness";
import { type ScriptedModel, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  createNodeRunner,
  openSession,
  type Session,
  type SessionRecord,
  type StateChange,
} from "../src/index.js";
import {
  drain,
  fileRecords,
  isDeepFrozen,
  latch,
  plugin,
  storePlugin,
  tempDirPerTest,
  textOf,
  throwsTypeError,
  toolMessages,
  toolNames,
  writeAndWaitTool,
} from "./support/index.ts";

const temp = tempDirPerTest("castellan-state-");

/** The records of a file store's log, in order. */
const logRecords = (id: string) => fileRecords(temp.path, id);

/** A tool that applies `update` with setState and reports what it then reads. */
function counterTool(name = "bump") {
  return defineTool({
    name,
    description: "Adds one to count",
    execute: (_input, ctx) => {
      ctx.setState((state) => ({ count: (state.count as number) + 1 }));
      return `count is ${String(ctx.state.count)}`;
    },
  });
}

describe("declaring state", () => {
  it("gives the agent and its capabilities one flat space of keys", async () => {
    const seen: StateView[] = [];
    const label = defineTool({
      name: "label",
      description: "Sets the label and the agent's count",
      execute: (_input, ctx) => {
        ctx.setState({ label: "ready", count: 5 });
        seen.push(ctx.state);
        return "labelled";
      },
    });
    const notes = defineCapability({
      name: "notes",
      state: { label: "none" },
      tools: [label],
      instructions: [{ name: "notes", text: (ctx) => `label=${String(ctx.state.label)}` }],
    });
    const model = scriptedModel([{ toolCalls: [{ name: "label", input: {} }] }, { text: "done" }]);
    const agent = defineAgent("test.flat-state", {
      model,
      state: { count: 0 },
      capabilities: [notes],
      instructions: { progress: (ctx) => `count=${String(ctx.state.count)} label=${String(ctx.state.label)}` },
    });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      expect(session.inspect().state).toEqual({ count: 0, label: "none" });
      await session.run("go").result;
      expect(seen).toEqual([{ count: 5, label: "ready" }]);
      expect(model.requests[0]?.system).toContain("count=0 label=none");
      expect(model.requests[1]?.system).toContain("count=5 label=ready");
      expect(model.requests[1]?.system).toContain("## notes\n\nlabel=ready");
      expect(session.inspect().state).toEqual({ count: 5, label: "ready" });
    } finally {
      await session.close();
    }
  });

  it("fails opening a Session when a key is declared twice, by the agent and a capability or by two capabilities", async () => {
    const model = scriptedModel([]);
    const first = defineCapability({ name: "first", state: { count: 1 } });
    const second = defineCapability({ name: "second", state: { count: 2 } });
    const agentAndCapability = defineAgent("test.duplicate-key", { model, state: { count: 0 }, capabilities: [first] });
    await expect(openSession({ agent: agentAndCapability })).rejects.toMatchObject({
      code: "invalid_declaration",
      message: expect.stringContaining('state key "count"'),
    });
    const twoCapabilities = defineAgent("test.duplicate-key", { model, capabilities: [first, second] });
    await expect(openSession({ agent: twoCapabilities })).rejects.toMatchObject({
      code: "invalid_declaration",
      message: expect.stringMatching(/capability "first" and by capability "second"/),
    });
    expect(model.requests).toHaveLength(0);
  });
});

describe("state inside a tool batch", () => {
  it("runs the spec's record_update example: the result reports the new count, and enabled hides the tool after 3", async () => {
    const recordUpdate = defineTool({
      name: "record_update",
      description: "Record a completed report update",
      enabled: (ctx) => (ctx.state.updates as number) < 3,
      async execute(_input, ctx) {
        ctx.setState((state) => ({ updates: (state.updates as number) + 1 }));
        return `Recorded update ${String(ctx.state.updates)}.`;
      },
    });
    const call = { toolCalls: [{ name: "record_update", input: {} }] };
    const model = scriptedModel([call, call, call, { text: "three updates recorded" }]);
    const agent = defineAgent("app.reporter", {
      model,
      state: { updates: 0 },
      instructions: {
        identity: "Record completed report updates.",
        progress: (ctx) => `Report updates so far: ${String(ctx.state.updates)}.`,
      },
      tools: [recordUpdate],
    });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      const result = await session.run("record").result;
      expect(result.text).toBe("three updates recorded");
      expect(toolMessages(model.requests[3]?.messages).map(textOf)).toEqual([
        "Recorded update 1.",
        "Recorded update 2.",
        "Recorded update 3.",
      ]);
      expect(model.requests.map((request) => request.system)).toEqual(
        [0, 1, 2, 3].map((count) => `Record completed report updates.\n\nReport updates so far: ${count}.`),
      );
      expect(model.requests.map(toolNames)).toEqual([["record_update"], ["record_update"], ["record_update"], []]);
    } finally {
      await session.close();
    }
  });

  it("shows a later tool of the batch the earlier tools' writes, while committed state stays unchanged until the batch settles", async () => {
    let session!: Session;
    const reads: { tool: string; own: JsonValue; committed: JsonValue }[] = [];
    const first = defineTool({
      name: "first",
      description: "Writes count",
      execute: (_input, ctx) => {
        ctx.setState({ count: 1 });
        reads.push({ tool: "first", own: ctx.state.count ?? null, committed: session.inspect().state.count ?? null });
        return "first";
      },
    });
    const enabledSaw: JsonValue[] = [];
    const second = defineTool({
      name: "second",
      description: "Reads and bumps count",
      enabled: (ctx) => {
        enabledSaw.push(ctx.state.count ?? null);
        return true;
      },
      execute: (_input, ctx) => {
        const before = ctx.state.count ?? null;
        ctx.setState((state) => ({ count: (state.count as number) + 10 }));
        reads.push({ tool: "second", own: before, committed: session.inspect().state.count ?? null });
        reads.push({
          tool: "second-after",
          own: ctx.state.count ?? null,
          committed: session.inspect().state.count ?? null,
        });
        return "second";
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "first", input: {} },
          { name: "second", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = defineAgent("test.batch-reads", {
      model,
      state: { count: 0 },
      instructions: { progress: (ctx) => `count=${String(ctx.state.count)}` },
      tools: [first, second],
    });
    session = await openSession({ agent, permissions: "full-access" });
    try {
      await session.run("go").result;
      expect(reads).toEqual([
        { tool: "first", own: 1, committed: 0 },
        { tool: "second", own: 1, committed: 0 },
        { tool: "second-after", own: 11, committed: 0 },
      ]);
      // Instructions and enabled saw committed values only: the opening, turn 1, then turn 2 after the batch.
      expect(enabledSaw).toEqual([0, 0, 11]);
      expect(model.requests.map((request) => request.system)).toEqual(["count=0", "count=11"]);
      expect(session.inspect().stateWrites).toEqual([
        { source: "tool", runId: expect.any(String), turn: 1, changes: { count: 11 } },
      ]);
    } finally {
      await session.close();
    }
  });

  it("applies a function update to the latest state, including earlier updates of the same call", async () => {
    const twice = defineTool({
      name: "twice",
      description: "Bumps twice",
      execute: (_input, ctx) => {
        ctx.setState((state) => ({ count: (state.count as number) + 1 }));
        ctx.setState((state) => ({ count: (state.count as number) * 10, seen: state.count ?? null }));
        return JSON.stringify(ctx.state);
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "twice", input: {} }] }, { text: "done" }]);
    const agent = defineAgent("test.function-update", { model, state: { count: 4, seen: null }, tools: [twice] });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      await session.run("go").result;
      expect(textOf(toolMessages(model.requests[1]?.messages)[0])).toBe('{"count":50,"seen":5}');
      expect(session.inspect().state).toEqual({ count: 50, seen: 5 });
    } finally {
      await session.close();
    }
  });

  it("copies and deeply freezes written values", async () => {
    const checks: Record<string, unknown> = {};
    const write = defineTool({
      name: "write",
      description: "Writes a document",
      execute: (_input, ctx) => {
        const doc = { title: "a", tags: ["x"] };
        ctx.setState({ doc });
        doc.tags.push("mutated after setState");
        const state = ctx.state as { doc: { title: string; tags: string[] } };
        checks.tags = [...state.doc.tags];
        checks.stateFrozen = Object.isFrozen(state);
        checks.docFrozen = Object.isFrozen(state.doc);
        checks.tagsFrozen = Object.isFrozen(state.doc.tags);
        checks.assignThrows = throwsTypeError(() => {
          state.doc.title = "changed";
        });
        checks.pushThrows = throwsTypeError(() => state.doc.tags.push("y"));
        checks.addKeyThrows = throwsTypeError(() => {
          (state as Record<string, unknown>).extra = 1;
        });
        return "written";
      },
    });
    let sectionDoc: unknown;
    const model = scriptedModel([{ toolCalls: [{ name: "write", input: {} }] }, { text: "done" }]);
    const agent = defineAgent("test.frozen-state", {
      model,
      state: { doc: null },
      tools: [write],
      instructions: {
        doc: (ctx) => {
          sectionDoc = ctx.state.doc;
          return "doc";
        },
      },
    });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      await session.run("go").result;
      expect(checks).toEqual({
        tags: ["x"],
        stateFrozen: true,
        docFrozen: true,
        tagsFrozen: true,
        assignThrows: true,
        pushThrows: true,
        addKeyThrows: true,
      });
      // The next turn's committed view is frozen all the way down, too.
      expect(sectionDoc).toEqual({ title: "a", tags: ["x"] });
      expect(isDeepFrozen(sectionDoc)).toBe(true);
      expect(isDeepFrozen(session.inspect().state)).toBe(true);
    } finally {
      await session.close();
    }
  });

  it("gives an error result coded state_invalid for an undeclared key or a non-JSON value, and commits nothing of that call", async () => {
    const attempts: Record<string, (ctx: { setState: (update: never) => void }) => void> = {
      undeclared: (ctx) => ctx.setState({ count: 2, bogus: true } as never),
      nonJson: (ctx) => ctx.setState({ count: 3, doc: { when: new Date(0) } } as never),
      notFinite: (ctx) => ctx.setState({ count: Number.NaN } as never),
      fromFunction: (ctx) => ctx.setState((() => ({ undeclaredToo: 1 })) as never),
      notAnObject: (ctx) => ctx.setState((() => [1, 2]) as never),
    };
    const tools = Object.entries(attempts).map(([name, attempt]) =>
      defineTool({
        name,
        description: name,
        execute: (_input, ctx) => {
          attempt(ctx as never);
          return "not reached";
        },
      }),
    );
    const names = Object.keys(attempts);
    const model = scriptedModel([{ toolCalls: names.map((name) => ({ name, input: {} })) }, { text: "done" }]);
    const agent = defineAgent("test.invalid-state", { model, state: { count: 0, doc: null }, tools });
    const store = createFileSessionStore({ directory: temp.path });
    const session = await openSession({ agent, id: "invalid", store, permissions: "full-access" });
    try {
      const result = await session.run("go").result;
      expect(result.text).toBe("done");
      const results = toolMessages(model.requests[1]?.messages);
      expect(results.map((message) => message.isError)).toEqual(names.map(() => true));
      for (const message of results) expect(textOf(message)).toContain("state_invalid");
      expect(textOf(results[0])).toContain('state key "bogus" is not declared');
      expect(textOf(results[1])).toContain("state.doc.when is not JSON");
      expect(session.inspect().state).toEqual({ count: 0, doc: null });
      expect(session.inspect().stateWrites).toEqual([]);
      const batchEnd = (await logRecords("invalid")).find((record) => record.kind === "tool-batch-end");
      expect(batchEnd).toEqual({ kind: "tool-batch-end", runId: result.runId, turn: 1, status: "committed" });
    } finally {
      await session.close();
    }
  });

  it("settles a tool's earlier valid write when it then throws or returns an error result", async () => {
    const throwsAfter = defineTool({
      name: "throws_after",
      description: "Writes, then throws",
      execute: (_input, ctx) => {
        ctx.setState({ a: 1 });
        throw new Error("service unavailable");
      },
    });
    const invalidAfter = defineTool({
      name: "invalid_after",
      description: "Writes, then writes an undeclared key",
      execute: (_input, ctx) => {
        ctx.setState({ b: 1 });
        ctx.setState({ b: 2, nope: 1 } as never);
        return "not reached";
      },
    });
    const errorResult = defineTool({
      name: "error_result",
      description: "Writes, then returns an error result",
      execute: (_input, ctx) => {
        ctx.setState({ c: 1 });
        return { content: "it did not work", isError: true };
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "throws_after", input: {} },
          { name: "invalid_after", input: {} },
          { name: "error_result", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = defineAgent("test.error-settles", {
      model,
      state: { a: 0, b: 0, c: 0 },
      tools: [throwsAfter, invalidAfter, errorResult],
    });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      await session.run("go").result;
      const results = toolMessages(model.requests[1]?.messages);
      expect(results.map((message) => message.isError)).toEqual([true, true, true]);
      expect(textOf(results[0])).toContain("service unavailable");
      expect(textOf(results[1])).toContain("state_invalid");
      // Ordinary tool errors settle the batch: writes made before the error commit; the invalid update does not.
      expect(session.inspect().state).toEqual({ a: 1, b: 1, c: 1 });
    } finally {
      await session.close();
    }
  });
});

describe("settling a batch's state", () => {
  it("saves the committed changes in the batch's tool-batch-end record, before state-changed and the stateChanged hooks", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const hookCalls: StateChange[] = [];
    const savedWhenHookRan: (SessionRecord | undefined)[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "bump", input: {} },
          { name: "bump", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = defineAgent("test.batch-record", { model, state: { count: 0 }, tools: [counterTool()] });
    const runner = await createNodeRunner({
      agent,
      permissions: "full-access",
      plugins: [
        storePlugin(store),
        plugin("test.hooks", (host) =>
          host.hooks.stateChanged(async (change) => {
            hookCalls.push(change);
            savedWhenHookRan.push((await logRecords("batch")).findLast((record) => record.kind === "tool-batch-end"));
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession({ id: "batch" });
      const run = session.run("go");
      const { events, error } = await drain(run);
      expect(error).toBeUndefined();
      const records = await logRecords("batch");
      expect(records.map((record) => record.kind)).toEqual([
        "session-open",
        "run-start",
        "assistant-message",
        "tool-batch-start",
        "tool-start",
        "tool-end",
        "tool-start",
        "tool-end",
        "tool-batch-end",
        "assistant-message",
        "run-end",
      ]);
      const batchEnd = { kind: "tool-batch-end", runId: run.id, turn: 1, status: "committed", changes: { count: 2 } };
      expect(records[8]).toEqual(batchEnd);
      expect(savedWhenHookRan).toEqual([batchEnd]);
      expect(hookCalls).toEqual([
        { sessionId: "batch", runId: run.id, turn: 1, source: "tool", changes: { count: 2 } },
      ]);
      const kinds = events.map((event) => event.kind);
      const stateChanged = kinds.indexOf("state-changed");
      expect(events[stateChanged]).toEqual({
        kind: "state-changed",
        runId: run.id,
        turn: 1,
        source: "tool",
        changes: { count: 2 },
      });
      expect(kinds.lastIndexOf("tool-end")).toBeLessThan(stateChanged);
      expect(kinds.indexOf("turn-end")).toBeGreaterThan(stateChanged);
      expect(kinds.filter((kind) => kind === "state-changed")).toHaveLength(1);
    } finally {
      await runner.close();
    }
  });

  it("keeps state committed when a stateChanged hook throws, reports hook-failed and still runs later hooks", async () => {
    const later: StateChange[] = [];
    const model = scriptedModel([{ toolCalls: [{ name: "bump", input: {} }] }, { text: "done" }]);
    const agent = defineAgent("test.hook-throws", {
      model,
      state: { count: 0 },
      instructions: { progress: (ctx) => `count=${String(ctx.state.count)}` },
      tools: [counterTool()],
    });
    const runner = await createNodeRunner({
      agent,
      permissions: "full-access",
      plugins: [
        plugin("test.hooks", (host) => {
          host.hooks.stateChanged(() => {
            throw new Error("notification service down");
          });
          host.hooks.stateChanged((change) => {
            later.push(change);
          });
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const run = session.run("go");
      const { events, error } = await drain(run);
      expect(error).toBeUndefined();
      expect(events.find((event) => event.kind === "hook-failed")).toEqual({
        kind: "hook-failed",
        runId: run.id,
        hook: "stateChanged",
        error: { code: "hook_failed", message: "notification service down" },
      });
      expect(later).toHaveLength(1);
      expect(model.requests[1]?.system).toBe("count=1");
      expect(session.inspect().state).toEqual({ count: 1 });
      expect(session.inspect().stateWrites).toHaveLength(1);
    } finally {
      await runner.close();
    }
  });

  it("discards tentative state when the Run is aborted during the batch, but keeps the receipts", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const waiting = latch();
    const writeFirst = defineTool({
      name: "write_first",
      description: "Writes count",
      execute: (_input, ctx) => {
        ctx.setState({ count: 1 });
        return "wrote 1";
      },
    });
    const writeAndWait = writeAndWaitTool({ count: 2 }, waiting);
    const seen: { count: JsonValue | undefined; first: number; second: number }[] = [];
    const check = defineTool({
      name: "check",
      description: "Reports state and receipts",
      execute: (_input, ctx) => {
        seen.push({
          count: ctx.state.count,
          first: ctx.toolCalls("write_first").length,
          second: ctx.toolCalls("write_and_wait").length,
        });
        return "checked";
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "write_first", input: {} },
          { name: "write_and_wait", input: {} },
        ],
      },
      { toolCalls: [{ name: "check", input: {} }] },
      { text: "done" },
    ]);
    const agent = defineAgent("test.abort-discards", {
      model,
      state: { count: 0 },
      tools: [writeFirst, writeAndWait, check],
    });
    const session = await openSession({ agent, id: "abort", store, permissions: "full-access" });
    try {
      const controller = new AbortController();
      const run = session.run("go", { signal: controller.signal });
      await waiting.promise;
      controller.abort();
      const { events, error } = await drain(run);
      expect(error).toMatchObject({ code: "run_aborted" });
      expect(events.some((event) => event.kind === "state-changed")).toBe(false);
      expect(session.inspect().state).toEqual({ count: 0 });
      expect(session.inspect().stateWrites).toEqual([]);

      const records = await logRecords("abort");
      const ends = records.filter((record) => record.kind === "tool-end");
      expect(ends.map((record) => record.toolName)).toEqual(["write_first", "write_and_wait"]);
      expect(records.filter((record) => record.kind === "tool-batch-end")).toEqual([
        { kind: "tool-batch-end", runId: run.id, turn: 1, status: "discarded", reason: "The run was aborted." },
      ]);

      await session.run("check").result;
      expect(seen).toEqual([{ count: 0, first: 1, second: 1 }]);
    } finally {
      await session.close();
    }
  });
});

describe("host writes with session.setState", () => {
  it("resolves once the queued write is saved, even while idle, and leaves committed state unchanged", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const agent = defineAgent("test.host-queued", { model: scriptedModel([]), state: { count: 0 } });
    const session = await openSession({ agent, id: "queued", store });
    try {
      expect(await readdir(temp.path)).not.toContain("queued.jsonl");
      await session.setState("count", 5);
      expect(await logRecords("queued")).toEqual([
        expect.objectContaining({ kind: "session-open", agentId: "test.host-queued" }),
        { kind: "state-queued", changes: { count: 5 } },
      ]);
      await session.setState("count", 6);
      const inspection = session.inspect();
      expect(inspection.state).toEqual({ count: 0 });
      expect(inspection.pendingState).toEqual([{ count: 5 }, { count: 6 }]);
      expect(inspection.stateWrites).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it("applies queued writes at the next turn's start, after the turnStart hooks, as one host write", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    let session!: Session;
    const atTurnStart: { count: JsonValue | undefined; pending: number; committedSaved: boolean }[] = [];
    const hookCalls: StateChange[] = [];
    const model = scriptedModel([{ text: "done" }]);
    const agent = defineAgent("test.host-applied", {
      model,
      state: { count: 0, label: "none" },
      instructions: { progress: (ctx) => `count=${String(ctx.state.count)} label=${String(ctx.state.label)}` },
    });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        storePlugin(store),
        plugin("test.hooks", (host) => {
          host.hooks.turnStart(async () => {
            const records = await logRecords("applied");
            atTurnStart.push({
              count: session.inspect().state.count,
              pending: session.inspect().pendingState.length,
              committedSaved: records.some((record) => record.kind === "state-committed"),
            });
          });
          host.hooks.stateChanged((change) => {
            hookCalls.push(change);
          });
        }),
      ],
    });
    try {
      session = await runner.createSession({ id: "applied" });
      await session.setState("count", 5);
      await session.setState("label", "host");
      await session.setState("count", 7);
      const run = session.run("go");
      const { events, error } = await drain(run);
      expect(error).toBeUndefined();
      expect(atTurnStart).toEqual([{ count: 0, pending: 3, committedSaved: false }]);
      expect(model.requests[0]?.system).toBe("count=7 label=host");
      const change = { runId: run.id, turn: 1, source: "host", changes: { count: 7, label: "host" } };
      expect(hookCalls).toEqual([{ sessionId: "applied", ...change }]);
      const kinds = events.map((event) => event.kind);
      expect(kinds.slice(0, 3)).toEqual(["run-start", "turn-start", "state-changed"]);
      expect(events[2]).toEqual({ kind: "state-changed", ...change });
      const records = await logRecords("applied");
      expect(records.map((record) => record.kind)).toEqual([
        "session-open",
        "state-queued",
        "state-queued",
        "state-queued",
        "run-start",
        "state-committed",
        "assistant-message",
        "run-end",
      ]);
      expect(records[5]).toEqual({ kind: "state-committed", ...change });
      const inspection = session.inspect();
      expect(inspection.pendingState).toEqual([]);
      expect(inspection.state).toEqual({ count: 7, label: "host" });
      expect(inspection.stateWrites).toEqual([change]);
    } finally {
      await runner.close();
    }
  });

  it("does not change what the running tool reads; the next turn sees the write", async () => {
    let session!: Session;
    const reads: JsonValue[] = [];
    const tool = defineTool({
      name: "observe",
      description: "Queues a host write meanwhile",
      execute: async (_input, ctx) => {
        reads.push(ctx.state.count ?? null);
        await session.setState("count", 9);
        reads.push(ctx.state.count ?? null);
        ctx.setState({ label: "tool" });
        reads.push(ctx.state.count ?? null);
        return "observed";
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "observe", input: {} }] }, { text: "done" }]);
    const agent = defineAgent("test.host-during-tool", {
      model,
      state: { count: 0, label: "none" },
      instructions: { progress: (ctx) => `count=${String(ctx.state.count)} label=${String(ctx.state.label)}` },
      tools: [tool],
    });
    session = await openSession({ agent, permissions: "full-access" });
    try {
      const run = session.run("go");
      const { events } = await drain(run);
      expect(reads).toEqual([0, 0, 0]);
      expect(model.requests[1]?.system).toBe("count=9 label=tool");
      expect(
        events.flatMap((event) => (event.kind === "state-changed" ? [[event.source, event.turn, event.changes]] : [])),
      ).toEqual([
        ["tool", 1, { label: "tool" }],
        ["host", 2, { count: 9 }],
      ]);
    } finally {
      await session.close();
    }
  });

  it("runs one more turn when a write is queued while the model answers with text only", async () => {
    let session!: Session;
    let queued: Promise<void> | undefined;
    const model: ScriptedModel = scriptedModel([
      () => {
        queued = session.setState("count", 3);
        return { text: "first answer" };
      },
      (request) => ({ text: `now: ${request.system}` }),
    ]);
    const agent = defineAgent("test.host-text-turn", {
      model,
      state: { count: 0 },
      instructions: { progress: (ctx) => `count=${String(ctx.state.count)}` },
    });
    session = await openSession({ agent });
    try {
      const run = session.run("go");
      const result = await run.result;
      await queued;
      expect(result.turns).toBe(2);
      expect(result.text).toBe("now: count=3");
      expect(model.requests.map((request) => request.system)).toEqual(["count=0", "count=3"]);
      expect(session.inspect().stateWrites).toEqual([
        { source: "host", runId: run.id, turn: 2, changes: { count: 3 } },
      ]);
    } finally {
      await session.close();
    }
  });

  it("rejects undeclared keys and non-JSON values with state_invalid, and any write after close with session_closed", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const agent = defineAgent("test.host-invalid", { model: scriptedModel([]), state: { count: 0 } });
    const session = await openSession({ agent, id: "host-invalid", store });
    await expect(session.setState("bogus", 1)).rejects.toMatchObject({
      code: "state_invalid",
      message: expect.stringContaining('state key "bogus" is not declared'),
    });
    await expect(session.setState("count", Number.POSITIVE_INFINITY)).rejects.toMatchObject({ code: "state_invalid" });
    await expect(session.setState("count", (() => 1) as unknown as JsonValue)).rejects.toMatchObject({
      code: "state_invalid",
    });
    expect(session.inspect().pendingState).toEqual([]);
    // Nothing was saved: the Session was never written.
    expect(await readdir(temp.path)).not.toContain("host-invalid.jsonl");
    await session.close();
    await expect(session.setState("count", 1)).rejects.toMatchObject({ code: "session_closed" });
  });

  it("restores committed state and the pending queue on reopen, and applies the queue only at the next Run's first turn", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const makeAgent = (model: ScriptedModel): Agent =>
      defineAgent("test.host-reopen", {
        model,
        state: { count: 0, label: "none" },
        instructions: { progress: (ctx) => `count=${String(ctx.state.count)} label=${String(ctx.state.label)}` },
        tools: [counterTool()],
      });
    const firstModel = scriptedModel([{ toolCalls: [{ name: "bump", input: {} }] }, { text: "done" }]);
    const first = await openSession({ agent: makeAgent(firstModel), id: "reopen", store, permissions: "full-access" });
    try {
      await first.run("go").result;
      await first.setState("label", "queued");
    } finally {
      await first.close();
    }
    const savedBefore = await logRecords("reopen");

    const secondModel = scriptedModel([{ text: "again" }]);
    const second = await openSession({
      agent: makeAgent(secondModel),
      id: "reopen",
      store,
      permissions: "full-access",
    });
    try {
      const reopened = second.inspect();
      expect(reopened.state).toEqual({ count: 1, label: "none" });
      expect(reopened.pendingState).toEqual([{ label: "queued" }]);
      expect(reopened.stateWrites).toEqual([
        { source: "tool", runId: expect.any(String), turn: 1, changes: { count: 1 } },
      ]);
      expect(reopened.initial.sections.map((section) => section.text)).toEqual(["count=1 label=none"]);
      // Opening wrote nothing and applied nothing.
      expect(await logRecords("reopen")).toEqual(savedBefore);
      expect(secondModel.requests).toHaveLength(0);

      const run = second.run("again");
      await run.result;
      expect(secondModel.requests[0]?.system).toBe("count=1 label=queued");
      const records = await logRecords("reopen");
      expect(records.slice(savedBefore.length)).toEqual([
        { kind: "run-start", runId: run.id, input: [{ type: "text", text: "again" }] },
        { kind: "state-committed", source: "host", runId: run.id, turn: 1, changes: { label: "queued" } },
        expect.objectContaining({ kind: "assistant-message", runId: run.id, turn: 1 }),
        { kind: "run-end", runId: run.id, status: "completed", stopReason: "end" },
      ]);
      expect(second.inspect().pendingState).toEqual([]);
      expect(second.inspect().state).toEqual({ count: 1, label: "queued" });
    } finally {
      await second.close();
    }
  });
});
