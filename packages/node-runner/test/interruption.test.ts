import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonValue, Message, ModelRequest, ToolContext } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  createMemorySessionStore,
  type NodeRunnerPlugin,
  openSession,
  type PermissionPreset,
  type Run,
  RunAbortedError,
  type SessionStore,
  unrecordedOutcome,
} from "../src/index.js";
import { killAt, killRemaining } from "./fixtures/child.ts";
import { interruptAgent } from "./fixtures/interrupt-agent.ts";
import {
  cleanupAfterEach,
  collect,
  fileRecords,
  latch,
  recordingApproval,
  rejection,
  stoppingStore,
  storeRecords,
  textOf,
  thrown,
} from "./support/index.ts";

/** What the reopening side's tools did. */
interface Execution {
  readonly name: string;
  readonly toolCallId: string;
  readonly input: JsonValue;
  readonly key: string;
}

/** The reopening side: the same agent as the child's, with tools that record what they execute. */
function reopener(steps: readonly ScriptedStepSource[]) {
  const model = scriptedModel(steps);
  const executed: Execution[] = [];
  const agent = interruptAgent(model, (name, input, ctx: ToolContext) => {
    executed.push({ name, toolCallId: ctx.toolCallId, input, key: ctx.idempotencyKey });
    return `${name} done in the new process`;
  });
  return { model, executed, agent };
}

/**
 * Checks the conversation a model was sent: every tool call has exactly one result, right
 * after its assistant message and before anything else; no result lacks a call; an assistant
 * message never directly follows another; the conversation does not end with the assistant.
 */
function expectWellFormed(messages: readonly Message[]): void {
  let open = new Set<string>();
  const settled = new Set<string>();
  let previous: Message["role"] | undefined;
  for (const message of messages) {
    if (message.role === "tool") {
      expect(open.has(message.toolCallId), `a result for call ${message.toolCallId}, which awaits none`).toBe(true);
      open.delete(message.toolCallId);
      expect(settled.has(message.toolCallId), `a second result for call ${message.toolCallId}`).toBe(false);
      settled.add(message.toolCallId);
    } else {
      expect([...open], "calls left without a result").toEqual([]);
      if (message.role === "assistant") {
        expect(previous, "two assistant messages in a row").not.toBe("assistant");
        open = new Set(message.toolCalls.map((call) => call.id));
      }
    }
    previous = message.role;
  }
  expect([...open], "calls left without a result").toEqual([]);
  expect(previous, "a conversation ending with the assistant's own message").not.toBe("assistant");
}

const { closeLater } = cleanupAfterEach();

// Each scenario's child is killed once; every test works on its own copy of the log.
let root: string;
const killed: Record<string, { runId: string; lines: readonly any[]; key?: string }> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-interruption-"));
  const kill = async (scenario: string, at: (line: any) => boolean) => {
    const directory = join(root, `killed-${scenario}`);
    await mkdir(directory);
    const { line, exit } = await killAt(
      "interrupt-child.ts",
      [scenario],
      { SESSION_DIRECTORY: directory, SESSION_ID: scenario },
      at,
    );
    killed[scenario] = { runId: line.runId, lines: exit.lines, key: line.key };
  };
  await Promise.all([
    // Killed once `send`, the second call of turn 2, has started (its intent is saved); `note` never started.
    kill("started", (line) => line.started === "send"),
    // Killed while the idempotent `charge` runs.
    kill("idempotent", (line) => line.started === "charge"),
  ]);
});

afterAll(async () => {
  await killRemaining();
  await rm(root, { recursive: true, force: true });
});

/** A fresh directory holding a copy of the log the killed child of `scenario` left. */
async function copyOf(scenario: string): Promise<string> {
  const directory = await mkdtemp(join(root, `${scenario}-`));
  const name = `${encodeURIComponent(scenario)}.jsonl`;
  await copyFile(join(root, `killed-${scenario}`, name), join(directory, name));
  return directory;
}

async function reopen(
  scenario: string,
  steps: readonly ScriptedStepSource[],
  options: { permissions?: PermissionPreset; approval?: NodeRunnerPlugin } = {},
) {
  const directory = await copyOf(scenario);
  const side = reopener(steps);
  const session = closeLater(
    await openSession({
      agent: side.agent,
      id: scenario,
      store: createFileSessionStore({ directory }),
      permissions: options.permissions ?? "full-access",
      ...(options.approval ? { approval: options.approval } : {}),
    }),
  );
  return { ...side, session, directory };
}

describe("a Run whose process was killed mid-batch", () => {
  it("leaves a log that ends with the started call's intent and no receipt for it", async () => {
    const { runId, lines } = killed.started as { runId: string; lines: readonly any[] };
    // In the dead process: both lookups ran, send started, note never did.
    expect(lines.filter((line) => line.executed).map((line) => line.toolCallId)).toEqual([
      "t1-lookup",
      "t2-lookup",
      "t2-send",
    ]);
    const records = await fileRecords(join(root, "killed-started"), "started");
    expect(records.map((record) => record.kind)).toEqual([
      "session-open",
      "run-start",
      "assistant-message",
      "tool-batch-start",
      "tool-start",
      "tool-end",
      "tool-batch-end",
      "assistant-message",
      "tool-batch-start",
      "tool-start",
      "tool-end",
      "tool-start",
    ]);
    expect(records.at(-1)).toMatchObject({ kind: "tool-start", runId, turn: 2, toolCall: { id: "t2-send" } });
  });

  it("reopens showing exactly what settled and what did not, and replays or retries nothing on open", async () => {
    const { runId } = killed.started as { runId: string };
    const { session, model, executed, directory } = await reopen("started", []);
    const before = await readFile(join(directory, "started.jsonl"));

    expect(model.requests).toHaveLength(0);
    expect(executed).toEqual([]);
    expect(session.interruptedRun()).toEqual({
      runId,
      status: "interrupted",
      turn: 2,
      unsettled: [
        {
          toolCallId: "t2-send",
          toolName: "send",
          input: { to: "bob", text: "hi" },
          state: "started",
          idempotent: false,
        },
        { toolCallId: "t2-note", toolName: "note", input: { text: "later" }, state: "not-started", idempotent: false },
      ],
    });
    expect(Object.isFrozen(session.interruptedRun())).toBe(true);
    expect(session.pendingApprovals()).toEqual([]);
    await session.close();

    // Opening and closing wrote nothing.
    expect(await readFile(join(directory, "started.jsonl"))).toEqual(before);
    expect(model.requests).toHaveLength(0);
    expect(executed).toEqual([]);
  });

  it("reports an idempotent call that started as such", async () => {
    const { runId } = killed.idempotent as { runId: string };
    const { session, model, executed } = await reopen("idempotent", []);
    expect(session.interruptedRun()).toEqual({
      runId,
      status: "interrupted",
      turn: 1,
      unsettled: [
        {
          toolCallId: "c-charge",
          toolName: "charge",
          input: { amount: 5, currency: "EUR" },
          state: "started",
          idempotent: true,
        },
      ],
    });
    expect(model.requests).toHaveLength(0);
    expect(executed).toEqual([]);
  });
});

describe("session.resume()", () => {
  it("continues the same Run: the started call is settled as outcome unknown, the not-started one runs, then the Run finishes", async () => {
    const { runId } = killed.started as { runId: string };
    const { session, model, executed, directory } = await reopen("started", [{ text: "all settled" }]);
    const run = session.resume();
    expect(run.id).toBe(runId);
    const events = await collect(run);
    const result = await run.result;

    expect(result).toMatchObject({ runId, text: "all settled", turns: 1 });
    expect(events[0]).toEqual({ kind: "run-resume", runId });
    expect(events.every((event) => event.runId === runId)).toBe(true);
    expect(events.some((event) => event.kind === "run-start")).toBe(false);
    expect(events.at(-1)).toMatchObject({ kind: "run-end", runId, status: "completed" });

    // send may have run in the dead process: it is not run again; note never ran: it runs now, once.
    expect(executed).toEqual([
      { name: "note", toolCallId: "t2-note", input: { text: "later" }, key: `castellan:started:${runId}:t2-note` },
    ]);
    const ends = events.flatMap((event) => (event.kind === "tool-end" ? [event] : []));
    expect(ends.map((event) => [event.toolCallId, event.result.isError, textOf(event.result)])).toEqual([
      ["t2-send", true, unrecordedOutcome],
      ["t2-note", false, "note done in the new process"],
    ]);
    expect(events.filter((event) => event.kind === "tool-start").map((event) => event.toolCallId)).toEqual(["t2-note"]);

    // The model is told, in call order, after the receipts the dead process saved.
    const request = model.requests[0] as ModelRequest;
    expect(request.messages.slice(-4)).toEqual([
      expect.objectContaining({ role: "assistant" }),
      expect.objectContaining({ role: "tool", toolCallId: "t2-lookup", isError: false }),
      {
        role: "tool",
        toolCallId: "t2-send",
        toolName: "send",
        content: [{ type: "text", text: unrecordedOutcome }],
        isError: true,
      },
      {
        role: "tool",
        toolCallId: "t2-note",
        toolName: "note",
        content: [{ type: "text", text: "note done in the new process" }],
        isError: false,
      },
    ]);
    expectWellFormed(request.messages);

    expect(session.interruptedRun()).toBeUndefined();
    expect(thrown(() => session.resume())).toMatchObject({ code: "nothing_to_resume" });
    await session.close();

    const records = await fileRecords(directory, "started");
    const tail = records.slice(12);
    expect(tail.map((record) => record.kind)).toEqual([
      "run-resume",
      "tool-end",
      "tool-start",
      "tool-end",
      "tool-batch-end",
      "assistant-message",
      "run-end",
    ]);
    expect(tail.every((record) => "runId" in record && record.runId === runId)).toBe(true);
    expect(tail.at(-1)).toEqual({ kind: "run-end", runId, status: "completed", stopReason: "end" });
    expect(records.filter((record) => record.kind === "run-start")).toHaveLength(1);
  });

  it("with retryIdempotent, runs an idempotent call that started again, with the idempotency key of its first attempt", async () => {
    const { runId, key } = killed.idempotent as { runId: string; key: string };
    expect(key).toBe(`castellan:idempotent:${runId}:c-charge`);
    const { session, model, executed, directory } = await reopen("idempotent", [{ text: "charged once" }]);
    const run = session.resume({ retryIdempotent: true });
    const events = await collect(run);
    expect((await run.result).text).toBe("charged once");

    expect(executed).toEqual([{ name: "charge", toolCallId: "c-charge", input: { amount: 5, currency: "EUR" }, key }]);
    const end = events.find((event) => event.kind === "tool-end");
    expect(end).toMatchObject({ toolCallId: "c-charge", result: { isError: false } });
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "c-charge",
      isError: false,
      content: [{ type: "text", text: "charge done in the new process" }],
    });
    await session.close();
    // Its intent was saved again before the second attempt.
    const starts = (await fileRecords(directory, "idempotent")).filter((record) => record.kind === "tool-start");
    expect(starts).toHaveLength(2);
  });

  it("without retryIdempotent, settles an idempotent call that started as outcome unknown", async () => {
    const { session, model, executed } = await reopen("idempotent", [{ text: "unknown then" }]);
    const run = session.resume();
    const events = await collect(run);
    expect((await run.result).text).toBe("unknown then");
    expect(executed).toEqual([]);
    expect(events.find((event) => event.kind === "tool-end")).toMatchObject({
      toolCallId: "c-charge",
      result: { isError: true, content: [{ type: "text", text: unrecordedOutcome }] },
    });
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "c-charge", isError: true });
  });

  it("throws nothing_to_resume on a new Session and after a completed Run", async () => {
    const model = scriptedModel([{ text: "done" }]);
    const agent = interruptAgent(model, () => "unused");
    const session = closeLater(await openSession({ agent, store: createMemorySessionStore() }));
    expect(session.interruptedRun()).toBeUndefined();
    const before = thrown(() => session.resume());
    expect(before).toMatchObject({ code: "nothing_to_resume" });
    await session.run("hello").result;
    expect(session.interruptedRun()).toBeUndefined();
    expect(thrown(() => session.resume())).toMatchObject({ code: "nothing_to_resume" });
  });

  it("resumes an aborted Run, also after reopening: the call running at the abort stays settled as it was", async () => {
    const store = createMemorySessionStore();
    const started = latch();
    const model = scriptedModel([{ toolCalls: [{ id: "slow-send", name: "send", input: {} }] }]);
    const agent = interruptAgent(model, (_name, _input, ctx) => {
      started.resolve();
      return new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
    });
    const session = await openSession({ agent, id: "aborted", store, permissions: "full-access" });
    const controller = new AbortController();
    const run = session.run("go", { signal: controller.signal });
    await started.promise;
    controller.abort();
    expect(await rejection(run.result)).toBeInstanceOf(RunAbortedError);
    // The running call settled with its abort; nothing is left open, but the Run can go on.
    expect(session.interruptedRun()).toEqual({ runId: run.id, status: "aborted", turn: 1, unsettled: [] });
    await session.close();

    const records = await storeRecords(store, "aborted");
    expect(records.at(-1)).toMatchObject({ kind: "run-end", runId: run.id, status: "aborted" });
    const resumedModel = scriptedModel([{ text: "carried on" }]);
    const again = closeLater(
      await openSession({ agent: interruptAgent(resumedModel, () => "unused"), id: "aborted", store }),
    );
    expect(again.interruptedRun()).toMatchObject({ runId: run.id, status: "aborted" });
    const resumed = again.resume();
    expect(resumed.id).toBe(run.id);
    expect(await resumed.result).toMatchObject({ runId: run.id, text: "carried on" });
    // The model saw the aborted call's own result; nothing ran again.
    expect(resumedModel.requests[0]?.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "slow-send",
      isError: true,
    });
    expect(again.interruptedRun()).toBeUndefined();
    expect(thrown(() => again.resume())).toMatchObject({ code: "nothing_to_resume" });
  });
});

describe("a new Run after an interrupted one", () => {
  it("first settles the interrupted Run, saves it as interrupted, and tells the model the outcomes", async () => {
    const { runId } = killed.started as { runId: string };
    const { session, model, executed, directory } = await reopen("started", [{ text: "fresh start" }]);
    const run = session.run("what happened?");
    const events = await collect(run);
    expect((await run.result).text).toBe("fresh start");

    expect(run.id).not.toBe(runId);
    expect(events.slice(0, 2)).toEqual([
      {
        kind: "run-interrupted",
        runId: run.id,
        interruptedRunId: runId,
        toolCalls: [
          { toolCallId: "t2-send", toolName: "send", outcome: "unknown" },
          { toolCallId: "t2-note", toolName: "note", outcome: "not-run" },
        ],
      },
      { kind: "run-start", runId: run.id, sessionId: "started", input: [{ type: "text", text: "what happened?" }] },
    ]);
    // Nothing of the interrupted Run runs.
    expect(executed).toEqual([]);

    const messages = (model.requests[0] as ModelRequest).messages;
    expect(messages.slice(-3)).toEqual([
      {
        role: "tool",
        toolCallId: "t2-send",
        toolName: "send",
        content: [{ type: "text", text: unrecordedOutcome }],
        isError: true,
      },
      {
        role: "tool",
        toolCallId: "t2-note",
        toolName: "note",
        content: [{ type: "text", text: "Not run: its run was interrupted before this call started." }],
        isError: true,
      },
      { role: "user", content: [{ type: "text", text: "what happened?" }] },
    ]);
    expectWellFormed(messages);
    expect(session.interruptedRun()).toBeUndefined();
    await session.close();

    const tail = (await fileRecords(directory, "started")).slice(12);
    expect(tail.map((record) => record.kind)).toEqual([
      "tool-end",
      "tool-end",
      "tool-batch-end",
      "run-end",
      "run-start",
      "assistant-message",
      "run-end",
    ]);
    expect(tail[2]).toMatchObject({ kind: "tool-batch-end", runId, status: "discarded" });
    expect(tail[3]).toEqual({ kind: "run-end", runId, status: "interrupted" });
    expect(tail[6]).toEqual({ kind: "run-end", runId: run.id, status: "completed", stopReason: "end" });
  });
});

// ---------------------------------------------------------------------------------------------
// A crash at every append boundary of one Run, simulated in this process: the store stops
// acknowledging appends from the chosen one on (it never saves it) and releases the Session, as
// a killed process would; a new Session on the same store then resumes, or starts a new Run.

/** The calls of turn 1: two parallel lookups, then two calls that need approval under ask-on-write. */
const turnOneCalls: { id: string; name: string; input: JsonValue }[] = [
  { id: "e-lookup-1", name: "lookup", input: { q: 1 } },
  { id: "e-lookup-2", name: "lookup", input: { q: 2 } },
  { id: "e-send", name: "send", input: { to: "erin" } },
  { id: "e-charge", name: "charge", input: { amount: 7 } },
];
const inputOf = new Map(turnOneCalls.map((call) => [call.id, call.input]));

/** Turn 1 calls the tools; any later turn answers `text`. */
function scripted(text: string, count: number): ScriptedStepSource[] {
  const step: ScriptedStepSource = (request) =>
    request.messages.some((message) => message.role === "assistant") ? { text } : { toolCalls: turnOneCalls };
  return Array.from({ length: count }, () => step);
}

type UnsettledState = "started" | "not-started" | "awaiting-approval" | "approved" | "denied";

/** What a crash before append `k` leaves, as interruptedRun() must report it. */
const afterCrashBefore: Record<number, { turn: number; unsettled: [string, UnsettledState][] } | undefined> = {
  1: undefined, // nothing saved
  2: { turn: 0, unsettled: [] }, // run-start
  3: {
    // the answer, tool-batch-start and the tool-start of both lookups (one append: they run in parallel)
    turn: 1,
    unsettled: [
      ["e-lookup-1", "started"],
      ["e-lookup-2", "started"],
      ["e-send", "not-started"],
      ["e-charge", "not-started"],
    ],
  },
  4: {
    turn: 1, // their receipts
    unsettled: [
      ["e-send", "not-started"],
      ["e-charge", "not-started"],
    ],
  },
  5: {
    turn: 1, // approval-request of send
    unsettled: [
      ["e-send", "awaiting-approval"],
      ["e-charge", "not-started"],
    ],
  },
  6: {
    turn: 1, // approval-answer (allow) of send
    unsettled: [
      ["e-send", "approved"],
      ["e-charge", "not-started"],
    ],
  },
  7: {
    turn: 1, // tool-start of send
    unsettled: [
      ["e-send", "started"],
      ["e-charge", "not-started"],
    ],
  },
  8: { turn: 1, unsettled: [["e-charge", "not-started"]] }, // tool-end of send
  9: { turn: 1, unsettled: [["e-charge", "awaiting-approval"]] },
  10: { turn: 1, unsettled: [["e-charge", "approved"]] },
  11: { turn: 1, unsettled: [["e-charge", "started"]] },
  12: { turn: 1, unsettled: [] }, // tool-end of charge with tool-batch-end (one append)
  // The final answer and run-end are the 12th append, together.
};
const crashPoints = Object.keys(afterCrashBefore).map(Number);

type Continuation = "resume" | "resume-retry" | "new-run";

async function crashThenContinue(crashAt: number, continuation: Continuation) {
  const inner = createMemorySessionStore();
  const executions: { side: "dead" | "live"; name: string; toolCallId: string; key: string }[] = [];
  const side = (which: "dead" | "live") => (name: string, _input: JsonValue, ctx: ToolContext) => {
    executions.push({ side: which, name, toolCallId: ctx.toolCallId, key: ctx.idempotencyKey });
    return `${name} done by the ${which} process`;
  };

  // The process that dies.
  // From append number `crashAt` on, the store saves nothing and never answers; at that append it releases the Session.
  const crashing = stoppingStore(inner, (_records, append) => append >= crashAt);
  const deadAsked: string[] = [];
  const dead = await openSession({
    agent: interruptAgent(scriptedModel(scripted("first done", 2)), side("dead")),
    id: "crashed",
    store: crashing.store,
    permissions: "ask-on-write",
    approval: recordingApproval(deadAsked),
  });
  const deadRun = dead.run("first");
  await crashing.stopped;
  // (`dead` is abandoned, as its process would be: its Run never settles and it is never closed.)

  // The next process.
  const liveModel = scriptedModel(scripted("finished", 3));
  const liveAsked: string[] = [];
  const session = closeLater(
    await openSession({
      agent: interruptAgent(liveModel, side("live")),
      id: "crashed",
      store: inner,
      permissions: "ask-on-write",
      approval: recordingApproval(liveAsked),
    }),
  );
  expect(liveModel.requests).toHaveLength(0);
  expect(executions.filter((execution) => execution.side === "live")).toEqual([]);

  const expected = afterCrashBefore[crashAt];
  const interrupted = session.interruptedRun();
  if (expected === undefined) {
    expect(interrupted).toBeUndefined();
  } else {
    expect(interrupted).toEqual({
      runId: deadRun.id,
      status: "interrupted",
      turn: expected.turn,
      unsettled: expected.unsettled.map(([toolCallId, state]) => ({
        toolCallId,
        toolName: turnOneCalls.find((call) => call.id === toolCallId)?.name,
        input: inputOf.get(toolCallId),
        state,
        idempotent: toolCallId === "e-charge",
      })),
    });
  }
  expect(session.pendingApprovals().map((pending) => [pending.toolCallId, pending.runId])).toEqual(
    (expected?.unsettled ?? [])
      .filter(([, state]) => state === "awaiting-approval")
      .map(([toolCallId]) => [toolCallId, deadRun.id]),
  );

  let run: Run;
  if (continuation === "new-run") {
    run = session.run("again");
  } else if (expected === undefined) {
    expect(thrown(() => session.resume())).toMatchObject({ code: "nothing_to_resume" });
    run = session.run("again");
  } else {
    run = session.resume({ retryIdempotent: continuation === "resume-retry" });
    expect(run.id).toBe(deadRun.id);
  }
  const events = await collect(run);
  const result = await run.result;
  const modelCalls = liveModel.requests.length;
  expect(session.interruptedRun()).toBeUndefined();
  expect(events.every((event) => event.runId === run.id)).toBe(true);
  const interruptedEvent = events.find((event) => event.kind === "run-interrupted");
  if (continuation === "new-run" && expected !== undefined) {
    expect(interruptedEvent).toEqual({
      kind: "run-interrupted",
      runId: run.id,
      interruptedRunId: deadRun.id,
      toolCalls: expected.unsettled.map(([toolCallId, state]) => ({
        toolCallId,
        toolName: turnOneCalls.find((call) => call.id === toolCallId)?.name,
        // A read-only call that started has no effect to be unsure of: it is settled as not run.
        outcome: state === "started" && !toolCallId.startsWith("e-lookup") ? "unknown" : "not-run",
      })),
    });
  } else {
    expect(interruptedEvent).toBeUndefined();
  }

  // One more Run shows the whole conversation as the model is sent it.
  await session.run("check").result;
  const last = liveModel.requests.at(-1) as ModelRequest;
  expectWellFormed(last.messages);
  await session.close();

  // The history opens again; it has one run-end per Run and one approval request per call at most.
  const records = await storeRecords(inner, "crashed");
  const runIds = new Set(records.flatMap((record) => (record.kind === "run-start" ? [record.runId] : [])));
  const runEnds = records.filter((record) => record.kind === "run-end");
  expect(runEnds.map((record) => record.runId).sort()).toEqual([...runIds].sort());
  const requests = records.flatMap((record) => (record.kind === "approval-request" ? [record.toolCallId] : []));
  expect(new Set(requests).size).toBe(requests.length);
  const reopened = closeLater(
    await openSession({ agent: interruptAgent(scriptedModel([]), side("live")), id: "crashed", store: inner }),
  );
  expect(reopened.interruptedRun()).toBeUndefined();

  return { executions, liveAsked, result, modelCalls };
}

describe("a crash at any append boundary of a Run", () => {
  it("is covered by the table: a Run without a crash makes exactly 12 appends", async () => {
    let appends = 0;
    const inner = createMemorySessionStore();
    const counting: SessionStore = {
      async open(sessionId, options) {
        const log = await inner.open(sessionId, options);
        return {
          sessionId,
          records: log.records,
          append: (records) => {
            appends++;
            return log.append(records);
          },
          close: () => log.close(),
        };
      },
    };
    const session = closeLater(
      await openSession({
        agent: interruptAgent(scriptedModel(scripted("first done", 2)), () => "ok"),
        store: counting,
        permissions: "ask-on-write",
        approval: recordingApproval([]),
      }),
    );
    expect((await session.run("first").result).text).toBe("first done");
    expect(appends).toBe(12);
  });

  for (const continuation of ["resume", "resume-retry", "new-run"] as const) {
    it.each(crashPoints)(`before append %i, then ${continuation}`, async (crashAt) => {
      const { executions, liveAsked, result, modelCalls } = await crashThenContinue(crashAt, continuation);
      // The final answer is saved together with run-end, so a resumed Run always asks the model again.
      expect(result.text).toBe("finished");
      expect(modelCalls).toBeGreaterThan(0);
      const count = (toolCallId: string) => executions.filter((execution) => execution.toolCallId === toolCallId);

      // A call with effects runs at most once, whatever happened; on resume, exactly once.
      expect(count("e-send").length).toBeLessThanOrEqual(1);
      if (continuation !== "new-run") expect(count("e-send")).toHaveLength(1);
      // A read-only call cut off after it started (crash before append 3) runs again on resume;
      // otherwise it too runs once.
      for (const id of ["e-lookup-1", "e-lookup-2"]) {
        const sides = count(id).map((execution) => execution.side);
        if (continuation === "new-run") expect(sides.length).toBeLessThanOrEqual(1);
        else expect(sides).toEqual(crashAt === 3 ? ["dead", "live"] : crashAt < 3 ? ["live"] : ["dead"]);
      }
      const charges = count("e-charge");
      if (continuation === "resume-retry" && crashAt === 11) {
        // It ran in the dead process, its receipt was lost: it runs again, with the same key.
        expect(charges.map((execution) => execution.side)).toEqual(["dead", "live"]);
        expect(charges[1]?.key).toBe(charges[0]?.key);
      } else {
        expect(charges.length).toBeLessThanOrEqual(1);
        if (continuation !== "new-run") expect(charges).toHaveLength(1);
      }
      if (continuation === "new-run" && crashAt >= 3) {
        // The interrupted calls are never run by the new Run.
        expect(executions.filter((execution) => execution.side === "live")).toEqual([]);
      }

      // A saved approval answer is used without asking again; a saved unanswered request is asked again.
      const askedLive = (id: string) => liveAsked.filter((asked) => asked === id).length;
      if (continuation !== "new-run") {
        expect(askedLive("e-send")).toBe(crashAt <= 5 ? 1 : 0);
        expect(askedLive("e-charge")).toBe(crashAt <= 9 ? 1 : 0);
      }
    });
  }
});
