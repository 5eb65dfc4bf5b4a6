import {
  defineAgent,
  defineTool,
  isCastellanError,
  type ModelBinding,
  type ModelCallOptions,
  type ModelRequest,
  type RunEvent,
} from "@castellan/harness";
import { type ScriptedModel, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner, openSession, RunAbortedError, type ToolApprovalRequest } from "../src/index.js";
import { approvalPlugin, cleanupAfterEach, collect, latch, rejection, textOf } from "./support/index.ts";

/** Wraps a scripted model to record the signal of every call. */
function observed(model: ScriptedModel): { binding: ModelBinding; signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  const binding: ModelBinding = {
    specifier: model.specifier,
    contextWindow: model.contextWindow,
    stream(request: ModelRequest, options: ModelCallOptions) {
      signals.push(options.signal);
      return model.stream(request, options);
    },
  };
  return { binding, signals };
}

function lastOf(events: readonly RunEvent[]): RunEvent | undefined {
  return events[events.length - 1];
}

function toolEnds(events: readonly RunEvent[]) {
  return events.flatMap((event) => (event.kind === "tool-end" ? [event] : []));
}

/** How many timers are pending in this process. */
function pendingTimeouts(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
}

/** Rejects with the signal's reason once it aborts, like a well-behaved tool or adapter. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

const cleanups = cleanupAfterEach();
const { closeLater } = cleanups;

describe("aborting a Run during the model stream", () => {
  it("rejects with RunAbortedError, ends the events with an aborted run-end and aborts the model's signal", async () => {
    const timersBefore = pendingTimeouts();
    const model = scriptedModel([{ text: "Thinking about it", hang: true }]);
    const { binding, signals } = observed(model);
    const agent = defineAgent("cancel.stream", { model: binding });
    const session = closeLater(await openSession({ agent }));
    const controller = new AbortController();
    const run = session.run("Start", { signal: controller.signal });

    const events = await collect(run, (event) => {
      if (event.kind === "assistant-text-delta") controller.abort();
    });
    const error = await rejection(run.result);

    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error).toMatchObject({ code: "run_aborted" });
    expect(isCastellanError(error, "run_aborted")).toBe(true);
    expect(lastOf(events)).toMatchObject({ kind: "run-end", runId: run.id, status: "aborted" });
    expect(lastOf(events)).toMatchObject({ error: { code: "run_aborted" } });
    expect(events.filter((event) => event.kind === "run-end")).toHaveLength(1);
    // The unfinished answer is not reported as a message.
    expect(events.some((event) => event.kind === "assistant-message")).toBe(false);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);

    await session.close();
    expect(pendingTimeouts()).toBeLessThanOrEqual(timersBefore);
  });

  it("lets the Session run again afterwards", async () => {
    const model = scriptedModel([{ text: "partial", hang: true }, { text: "Fresh answer" }]);
    const agent = defineAgent("cancel.stream-again", { model });
    const session = closeLater(await openSession({ agent }));
    const controller = new AbortController();
    const first = session.run("First", { signal: controller.signal });
    await collect(first, (event) => {
      if (event.kind === "assistant-text-delta") controller.abort();
    });
    expect(await rejection(first.result)).toBeInstanceOf(RunAbortedError);

    const second = await session.run("Second").result;
    expect(second.text).toBe("Fresh answer");
    // The aborted turn left no assistant message in the history: only the two user inputs.
    const request = model.requests[1];
    expect(request?.messages.map((message) => message.role)).toEqual(["user", "user"]);
    model.assertComplete();
  });
});

describe("aborting a Run while a tool runs", () => {
  it("aborts the tool's signal, records its error, leaves later calls of the batch open, and settles aborted", async () => {
    const timersBefore = pendingTimeouts();
    const started = latch<AbortSignal>();
    const slow = defineTool({
      name: "slow",
      description: "Waits until it is aborted",
      execute: async (_input, ctx) => {
        started.resolve(ctx.signal);
        return await untilAborted(ctx.signal);
      },
    });
    let afterCalls = 0;
    const after = defineTool({
      name: "after",
      description: "Runs after slow",
      execute: () => {
        afterCalls++;
        return "after ran";
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "slow", input: {} },
          { name: "after", input: {} },
        ],
      },
      { text: "Recovered" },
    ]);
    const agent = defineAgent("cancel.tool", { model, tools: [slow, after] });
    const runner = await createNodeRunner({ agent, permissions: "full-access" });
    cleanups.push(() => runner.close());
    const session = await runner.createSession();
    const controller = new AbortController();
    const run = session.run("Go", { signal: controller.signal });
    const eventsDone = collect(run);

    const toolSignal = await started.promise;
    expect(toolSignal.aborted).toBe(false);
    controller.abort();
    const error = await rejection(run.result);
    const events = await eventsDone;

    expect(error).toBeInstanceOf(RunAbortedError);
    expect(toolSignal.aborted).toBe(true);
    expect(afterCalls).toBe(0);
    expect(lastOf(events)).toMatchObject({ kind: "run-end", status: "aborted", error: { code: "run_aborted" } });
    const starts = events.filter((event) => event.kind === "tool-start");
    expect(starts.map((event) => event.kind === "tool-start" && event.toolName)).toEqual(["slow"]);
    // The running call has its receipt; the one that never started has none, so a resume could still run it.
    const ends = toolEnds(events);
    expect(ends.map((event) => event.toolName)).toEqual(["slow"]);
    expect(ends[0]?.result.isError).toBe(true);
    expect(textOf(ends[0]!.result)).toMatch(/aborted/);
    expect(session.interruptedRun()).toMatchObject({
      status: "aborted",
      unsettled: [{ toolCallId: "call_2", toolName: "after", state: "not-started" }],
    });

    // A new Run instead settles the call that never started as not run, before its own start.
    const next = await session.run("Again").result;
    expect(next.text).toBe("Recovered");
    const request = model.requests[1];
    expect(request?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(request?.messages[2]).toMatchObject({ role: "tool", toolCallId: "call_1", toolName: "slow", isError: true });
    expect(request?.messages[3]).toMatchObject({
      role: "tool",
      toolCallId: "call_2",
      toolName: "after",
      isError: true,
    });
    const toolMessage = request?.messages[3];
    expect(toolMessage?.role === "tool" && toolMessage.content[0]).toMatchObject({
      text: expect.stringMatching(/^Not run/),
    });
    model.assertComplete();

    await session.close();
    await runner.close();
    expect(pendingTimeouts()).toBeLessThanOrEqual(timersBefore);
  });

  it("aborts every tool of a parallel read-only group", async () => {
    const started = [latch<AbortSignal>(), latch<AbortSignal>()];
    const reader = (name: string, index: number) =>
      defineTool({
        name,
        description: "Reads until aborted",
        readOnly: true,
        execute: async (_input, ctx) => {
          started[index]?.resolve(ctx.signal);
          return await untilAborted(ctx.signal);
        },
      });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "read_a", input: {} },
          { name: "read_b", input: {} },
        ],
      },
    ]);
    const agent = defineAgent("cancel.parallel", { model, tools: [reader("read_a", 0), reader("read_b", 1)] });
    const session = closeLater(await openSession({ agent }));
    const controller = new AbortController();
    const run = session.run("Read both", { signal: controller.signal });
    const eventsDone = collect(run);
    const signals = await Promise.all(started.map((item) => item.promise));
    controller.abort();

    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    const events = await eventsDone;
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    const ends = toolEnds(events);
    expect(ends.map((event) => event.toolName)).toEqual(["read_a", "read_b"]);
    for (const end of ends) {
      expect(end.result.isError).toBe(true);
      expect(textOf(end.result)).toMatch(/aborted/);
    }
    expect(lastOf(events)).toMatchObject({ kind: "run-end", status: "aborted" });
  });

  it("abandons a tool that ignores the signal after abortGraceMs with an unknown outcome", async () => {
    const timersBefore = pendingTimeouts();
    const started = latch();
    const release = latch<string>();
    let finished = false;
    const stubborn = defineTool({
      name: "stubborn",
      description: "Ignores its signal",
      execute: async () => {
        started.resolve();
        const value = await release.promise;
        finished = true;
        return value;
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "stubborn", input: {} }] }, { text: "Moving on" }]);
    const agent = defineAgent("cancel.grace", { model, tools: [stubborn] });
    const runner = await createNodeRunner({ agent, permissions: "full-access", limits: { abortGraceMs: 1 } });
    cleanups.push(() => runner.close());
    // Let the abandoned tool finish when the test ends, whatever happened.
    cleanups.push(() => release.resolve("too late"));
    const session = await runner.createSession();
    const controller = new AbortController();
    const run = session.run("Go", { signal: controller.signal });
    const eventsDone = collect(run);
    await started.promise;
    controller.abort();

    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    const events = await eventsDone;
    expect(finished).toBe(false);
    const [end] = toolEnds(events);
    expect(end?.result.isError).toBe(true);
    expect(textOf(end!.result)).toMatch(/outcome is unknown/);
    expect(lastOf(events)).toMatchObject({ kind: "run-end", status: "aborted" });

    // The tool finishing late changes nothing that was recorded.
    release.resolve("too late");
    await expect(session.run("Next").result).resolves.toMatchObject({ text: "Moving on" });
    expect(finished).toBe(true);
    const request = model.requests[1];
    expect(request?.messages[2]).toMatchObject({ role: "tool", toolCallId: "call_1", isError: true });
    const toolMessage = request?.messages[2];
    expect(toolMessage?.role === "tool" && toolMessage.content[0]).toMatchObject({
      text: expect.stringMatching(/outcome is unknown/),
    });

    await session.close();
    await runner.close();
    expect(pendingTimeouts()).toBeLessThanOrEqual(timersBefore);
  });

  it("settles with the tool's own result when it stops within the grace period", async () => {
    const started = latch<AbortSignal>();
    const polite = defineTool({
      name: "polite",
      description: "Stops when asked",
      execute: async (_input, ctx) => {
        started.resolve(ctx.signal);
        await untilAborted(ctx.signal).catch(() => undefined);
        return { content: "stopped cleanly", isError: true };
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "polite", input: {} }] }]);
    const agent = defineAgent("cancel.polite", { model, tools: [polite] });
    // A long grace: the tool's own answer must win without any timer firing.
    const runner = await createNodeRunner({ agent, permissions: "full-access", limits: { abortGraceMs: 60_000 } });
    cleanups.push(() => runner.close());
    const timersBefore = pendingTimeouts();
    const session = await runner.createSession();
    const controller = new AbortController();
    const run = session.run("Go", { signal: controller.signal });
    const eventsDone = collect(run);
    await started.promise;
    controller.abort();

    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    const [end] = toolEnds(await eventsDone);
    expect(end?.result).toEqual({ content: [{ type: "text", text: "stopped cleanly" }], isError: true });
    await session.close();
    // The grace timer was cleared when the tool settled.
    expect(pendingTimeouts()).toBeLessThanOrEqual(timersBefore);
  });
});

describe("aborting a Run while a call awaits approval", () => {
  it("aborts the run and never executes the tool", async () => {
    const asked = latch<{ request: ToolApprovalRequest; signal: AbortSignal }>();
    const approval = approvalPlugin((request, { signal }) => {
      asked.resolve({ request, signal });
      return untilAborted(signal);
    });
    let executed = 0;
    const write = defineTool({
      name: "write",
      description: "Has effects",
      execute: () => {
        executed++;
        return "written";
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "write", input: {} }] }, { text: "ok" }]);
    const agent = defineAgent("cancel.approval", { model, tools: [write] });
    const session = closeLater(await openSession({ agent, approval }));
    const controller = new AbortController();
    const run = session.run("Write it", { signal: controller.signal });
    const eventsDone = collect(run);

    const question = await asked.promise;
    expect(question.request).toMatchObject({ toolName: "write", toolCallId: "call_1", readOnly: false });
    expect(question.signal.aborted).toBe(false);
    controller.abort();

    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    const events = await eventsDone;
    expect(question.signal.aborted).toBe(true);
    expect(executed).toBe(0);
    expect(events.some((event) => event.kind === "tool-start")).toBe(false);
    // The request stays pending: it can still be answered and the Run resumed.
    expect(toolEnds(events)).toEqual([]);
    expect(session.pendingApprovals()).toMatchObject([{ toolCallId: "call_1", toolName: "write" }]);
    expect(lastOf(events)).toMatchObject({ kind: "run-end", status: "aborted" });

    // A new Run settles the unapproved call as not run; nothing ran.
    await session.run("Never mind").result;
    expect(model.requests[1]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(textOf(model.requests[1]?.messages[2])).toMatch(/^Not run/);
    expect(session.pendingApprovals()).toEqual([]);
    expect(executed).toBe(0);
  });
});

describe("an already-aborted Run signal", () => {
  it("rejects without calling the model", async () => {
    const model = scriptedModel([{ text: "unused" }]);
    const { binding, signals } = observed(model);
    const agent = defineAgent("cancel.pre-aborted", { model: binding });
    const session = closeLater(await openSession({ agent }));
    const run = session.run("Hello", { signal: AbortSignal.abort() });
    const events = await collect(run);

    const error = await rejection(run.result);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error).toMatchObject({ code: "run_aborted" });
    expect(signals).toHaveLength(0);
    expect(model.requests).toHaveLength(0);
    expect(model.remaining).toBe(1);
    expect(events.some((event) => event.kind === "turn-start")).toBe(false);
    expect(lastOf(events)).toMatchObject({ kind: "run-end", status: "aborted" });

    // Nothing of the refused Run reaches the history.
    await expect(session.run("Again").result).resolves.toMatchObject({ text: "unused" });
    expect(model.requests[0]?.messages.map((message) => message.role)).toEqual(["user"]);
  });
});

describe("the Session's signal", () => {
  it("aborts the active Run when openSession's signal aborts later", async () => {
    const model = scriptedModel([{ text: "waiting", hang: true }]);
    const { binding, signals } = observed(model);
    const agent = defineAgent("cancel.session-signal", { model: binding });
    const controller = new AbortController();
    const session = closeLater(await openSession({ agent, signal: controller.signal }));
    const run = session.run("Go");
    const events = await collect(run, (event) => {
      if (event.kind === "assistant-text-delta") controller.abort();
    });

    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    expect(lastOf(events)).toMatchObject({ kind: "run-end", status: "aborted" });
    expect(signals[0]?.aborted).toBe(true);
    // Aborting the open signal does not close the Session.
    expect(session.signal.aborted).toBe(false);
    await session.close();
    expect(session.signal.aborted).toBe(true);
  });

  it("aborts a Run that has its own signal too (either signal aborts it)", async () => {
    const model = scriptedModel([{ text: "waiting", hang: true }]);
    const { binding, signals } = observed(model);
    const agent = defineAgent("cancel.both-signals", { model: binding });
    const runner = await createNodeRunner({ agent });
    cleanups.push(() => runner.close());
    const sessionController = new AbortController();
    const runController = new AbortController();
    const session = await runner.createSession({ signal: sessionController.signal });
    const run = session.run("Go", { signal: runController.signal });
    const events = await collect(run, (event) => {
      if (event.kind === "assistant-text-delta") sessionController.abort();
    });

    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    expect(lastOf(events)).toMatchObject({ kind: "run-end", status: "aborted" });
    expect(signals[0]?.aborted).toBe(true);
    expect(runController.signal.aborted).toBe(false);
  });
});

describe("close during cancellation", () => {
  it("leaves no timers or active Run behind after abort and close", async () => {
    const timersBefore = pendingTimeouts();
    const started = latch();
    const slow = defineTool({
      name: "slow",
      description: "Waits until aborted",
      execute: async (_input, ctx) => {
        started.resolve();
        return await untilAborted(ctx.signal);
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "slow", input: {} }] }]);
    const agent = defineAgent("cancel.close", { model, tools: [slow] });
    const session = await openSession({ agent, permissions: "full-access" });
    const controller = new AbortController();
    const run = session.run("Go", { signal: controller.signal });
    await started.promise;
    // close waits for the Run, which settles once it is aborted.
    const closed = session.close();
    controller.abort();
    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    await closed;
    expect(session.signal.aborted).toBe(true);
    expect(pendingTimeouts()).toBeLessThanOrEqual(timersBefore);
  });
});
