// A Run aborted through its signal can be resumed: the call running at the abort keeps the
// result it settled with, calls that never started are decided and run by the resume, a
// pending approval can be answered first, and the batch's state writes stay discarded. A new
// Run instead settles what the aborted one left open as not run.
import { defineAgent, defineTool, type JsonValue, type ToolContext } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  createMemorySessionStore,
  openSession,
  RunAbortedError,
  type SessionStore,
} from "../src/index.js";
import { approvalPlugin, collect, latch, rejection, storeRecords, tempDirPerTest, textOf } from "./support/index.ts";

const temp = tempDirPerTest("castellan-resume-abort-");

/** An agent whose `slow` tool waits for the abort and whose `after` tool records that it ran. */
function batchAgent(model: ReturnType<typeof scriptedModel>, ran: string[], started?: () => void) {
  const slow = defineTool({
    name: "slow",
    description: "Waits until aborted",
    execute: (_input: JsonValue, ctx: ToolContext) => {
      ctx.setState({ touched: true });
      started?.();
      return new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("stopped"))));
    },
  });
  const after = defineTool({
    name: "after",
    description: "Runs after slow",
    execute: () => {
      ran.push("after");
      return "after ran";
    },
  });
  return defineAgent("test.resume-abort", { model, state: { touched: false }, tools: [slow, after] });
}

const twoCalls = {
  toolCalls: [
    { id: "c-slow", name: "slow", input: {} },
    { id: "c-after", name: "after", input: {} },
  ],
};

/** Runs the batch until `slow` is running, aborts, and returns the aborted Run's id. */
async function abortMidBatch(store: SessionStore, ran: string[]): Promise<string> {
  const running = latch();
  const session = await openSession({
    agent: batchAgent(scriptedModel([twoCalls]), ran, () => running.resolve()),
    id: "s",
    store,
    permissions: "full-access",
  });
  try {
    const controller = new AbortController();
    const run = session.run("go", { signal: controller.signal });
    const events = collect(run);
    await running.promise;
    controller.abort();
    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    await events;
    expect(session.interruptedRun()).toEqual({
      runId: run.id,
      status: "aborted",
      turn: 1,
      unsettled: [{ toolCallId: "c-after", toolName: "after", input: {}, state: "not-started", idempotent: false }],
    });
    return run.id;
  } finally {
    await session.close();
  }
}

describe("resuming an aborted Run", () => {
  it("runs the calls it never started, keeps the running call's result, and goes on, after a reopen", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const ran: string[] = [];
    const runId = await abortMidBatch(store, ran);
    expect(ran).toEqual([]);

    const model = scriptedModel([{ text: "finished" }]);
    const session = await openSession({ agent: batchAgent(model, ran), id: "s", store, permissions: "full-access" });
    try {
      const run = session.resume();
      const events = await collect(run);
      expect(await run.result).toMatchObject({ runId, text: "finished" });
      expect(events[0]).toEqual({ kind: "run-resume", runId });
      expect(ran).toEqual(["after"]);
      // slow's write was in the aborted batch: discarded, and not revived by the resume.
      expect(session.inspect().state).toEqual({ touched: false });
    } finally {
      await session.close();
    }
    const tools = model.requests[0]?.messages.filter((message) => message.role === "tool") ?? [];
    expect(tools.map((message) => [message.toolCallId, message.isError, textOf(message)])).toEqual([
      ["c-slow", true, expect.stringContaining("aborted")],
      ["c-after", false, "after ran"],
    ]);
    const records = await storeRecords(store, "s");
    expect(records.filter((record) => record.kind === "run-end").map((record) => record.status)).toEqual([
      "aborted",
      "completed",
    ]);
    expect(records.filter((record) => record.kind === "tool-batch-end").map((record) => record.status)).toEqual([
      "discarded",
      "committed",
    ]);
  });

  it("a new Run settles the calls the aborted one never started as not run, with receipts", async () => {
    const store = createMemorySessionStore();
    const ran: string[] = [];
    const abortedId = await abortMidBatch(store, ran);
    const model = scriptedModel([{ text: "fresh start" }]);
    const session = await openSession({ agent: batchAgent(model, ran), id: "s", store, permissions: "full-access" });
    try {
      const run = session.run("something else");
      const events = await collect(run);
      expect((await run.result).text).toBe("fresh start");
      // Nothing stopped uncleanly, so no run-interrupted event; the aborted Run is no longer resumable.
      expect(events.some((event) => event.kind === "run-interrupted")).toBe(false);
      expect(session.interruptedRun()).toBeUndefined();
      expect(() => session.resume()).toThrow(expect.objectContaining({ code: "nothing_to_resume" }));
    } finally {
      await session.close();
    }
    expect(ran).toEqual([]);
    const receipt = (await storeRecords(store, "s")).find(
      (record) => record.kind === "tool-end" && record.toolCallId === "c-after",
    );
    expect(receipt).toMatchObject({ runId: abortedId, result: { isError: true } });
    expect(textOf(model.requests[0]?.messages[3])).toMatch(/^Not run/);
  });

  it("lets a pending approval be answered after the abort, then runs the call without asking again", async () => {
    const store = createMemorySessionStore();
    const asked = latch();
    const executed: string[] = [];
    const write = defineTool({
      name: "write",
      description: "Has effects",
      execute: () => {
        executed.push("write");
        return "written";
      },
    });
    const agent = (model: ReturnType<typeof scriptedModel>) =>
      defineAgent("test.resume-abort", { model, tools: [write] });
    let questions = 0;
    const approval = approvalPlugin((_request, { signal }) => {
      questions++;
      asked.resolve();
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    });
    const first = await openSession({
      agent: agent(scriptedModel([{ toolCalls: [{ id: "w1", name: "write", input: {} }] }])),
      id: "s",
      store,
      approval,
    });
    const controller = new AbortController();
    try {
      const run = first.run("write it", { signal: controller.signal });
      await asked.promise;
      controller.abort();
      await rejection(run.result);
      expect(first.pendingApprovals()).toMatchObject([{ toolCallId: "w1", toolName: "write" }]);
      expect(first.interruptedRun()?.unsettled).toMatchObject([{ toolCallId: "w1", state: "awaiting-approval" }]);
      await first.answerApproval("w1", { decision: "allow", reason: "approved later" });
      const model = scriptedModel([{ text: "done" }]);
      expect(first.interruptedRun()?.unsettled).toMatchObject([{ toolCallId: "w1", state: "approved" }]);
      // The Session's model is declared; the resumed Run may use another binding.
      const resumed = first.resume({ model });
      expect((await resumed.result).text).toBe("done");
    } finally {
      await first.close();
    }
    expect(questions).toBe(1);
    expect(executed).toEqual(["write"]);
  });

  it("takes the next model call again when the abort came during the model's answer", async () => {
    const store = createMemorySessionStore();
    const streaming = scriptedModel([{ text: "partial", chunkSize: 1, hang: true }]);
    const first = await openSession({ agent: defineAgent("test.resume-abort", { model: streaming }), id: "s", store });
    const controller = new AbortController();
    let runId: string;
    try {
      const run = first.run("hello", { signal: controller.signal });
      runId = run.id;
      for await (const event of run) {
        if (event.kind === "assistant-text-delta") controller.abort();
      }
      await rejection(run.result);
      expect(first.interruptedRun()).toEqual({ runId, status: "aborted", turn: 0, unsettled: [] });
    } finally {
      await first.close();
    }
    const model = scriptedModel([{ text: "whole answer" }]);
    const second = await openSession({ agent: defineAgent("test.resume-abort", { model }), id: "s", store });
    try {
      expect(await second.resume().result).toMatchObject({ runId, text: "whole answer", turns: 1 });
    } finally {
      await second.close();
    }
    // The unsaved partial answer is not part of the conversation.
    expect(model.requests[0]?.messages.map((message) => message.role)).toEqual(["user"]);
  });
});
