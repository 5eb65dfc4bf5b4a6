import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonValue, ModelRequest, ToolContext } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileSessionStore, type NodeRunnerPlugin, openSession, type Session } from "../src/index.js";
import { killAt, killRemaining, startFixture } from "./fixtures/child.ts";
import { interruptAgent } from "./fixtures/interrupt-agent.ts";
import { cleanupAfterEach, collect, fileRecords, recordingApproval, rejection } from "./support/index.ts";

const { closeLater } = cleanupAfterEach();

// The child asks for approval of `send` (after `lookup`, which is read-only, ran) and is killed
// while its adapter has not answered. Every test works on its own copy of that log.
let root: string;
let killedRunId: string;
let askedInChild: { toolCallId: string; toolName: string; input: JsonValue; runId: string; readOnly: boolean };
let childLines: readonly any[];
const sendInput = { to: "carol", text: "hello", cc: ["dave"] };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-approvals-"));
  const directory = join(root, "killed");
  await mkdir(directory);
  const { line, exit } = await killAt(
    "interrupt-child.ts",
    ["approval"],
    { SESSION_DIRECTORY: directory, SESSION_ID: "approval" },
    (printed) => printed.asked !== undefined,
  );
  askedInChild = line.asked;
  killedRunId = line.asked.runId;
  childLines = exit.lines;
});

afterAll(async () => {
  await killRemaining();
  await rm(root, { recursive: true, force: true });
});

async function copyOfLog(): Promise<string> {
  const directory = await mkdtemp(join(root, "copy-"));
  await copyFile(join(root, "killed", "approval.jsonl"), join(directory, "approval.jsonl"));
  return directory;
}

/** Reopens a copy of the killed child's Session in this process, with ask-on-write and `approval`. */
async function reopen(steps: readonly ScriptedStepSource[], approval: NodeRunnerPlugin, directory?: string) {
  const where = directory ?? (await copyOfLog());
  const model = scriptedModel(steps);
  const executed: { name: string; toolCallId: string; input: JsonValue }[] = [];
  const agent = interruptAgent(model, (name, input, ctx: ToolContext) => {
    executed.push({ name, toolCallId: ctx.toolCallId, input });
    return `${name} done after approval`;
  });
  const session: Session = closeLater(
    await openSession({
      agent,
      id: "approval",
      store: createFileSessionStore({ directory: where }),
      permissions: "ask-on-write",
      approval,
    }),
  );
  return { session, model, executed, directory: where };
}

describe("an approval request whose process was killed while asking", () => {
  it("was saved before the adapter was asked, with the exact input", async () => {
    expect(askedInChild).toEqual({
      toolCallId: "a-send",
      toolName: "send",
      input: sendInput,
      runId: killedRunId,
      readOnly: false,
    });
    // The read-only lookup was allowed without asking and ran; send did not.
    expect(childLines.filter((line) => line.executed).map((line) => line.toolCallId)).toEqual(["a-lookup"]);
    const records = await fileRecords(join(root, "killed"), "approval");
    expect(records.at(-1)).toEqual({
      kind: "approval-request",
      runId: killedRunId,
      turn: 1,
      toolCallId: "a-send",
      toolName: "send",
      input: sendInput,
      readOnly: false,
    });
  });

  it("is listed by pendingApprovals() after reopening, and nothing is asked or run on open", async () => {
    const asked: string[] = [];
    const { session, model, executed, directory } = await reopen([], recordingApproval(asked, "allow"));
    expect(session.pendingApprovals()).toEqual([
      { runId: killedRunId, turn: 1, toolCallId: "a-send", toolName: "send", input: sendInput, readOnly: false },
    ]);
    expect(Object.isFrozen(session.pendingApprovals()[0])).toBe(true);
    expect(session.interruptedRun()).toEqual({
      runId: killedRunId,
      status: "interrupted",
      turn: 1,
      unsettled: [
        { toolCallId: "a-send", toolName: "send", input: sendInput, state: "awaiting-approval", idempotent: false },
      ],
    });
    expect(asked).toEqual([]);
    expect(model.requests).toHaveLength(0);
    expect(executed).toEqual([]);
    const before = await readFile(join(directory, "approval.jsonl"));
    await session.close();
    expect(await readFile(join(directory, "approval.jsonl"))).toEqual(before);
  });

  it("answerApproval rejects a call that awaits no approval, and an invalid answer, saving nothing", async () => {
    const { session, directory } = await reopen([], recordingApproval([], "allow"));
    const before = await readFile(join(directory, "approval.jsonl"));
    expect(await rejection(session.answerApproval("no-such-call", { decision: "allow" }))).toMatchObject({
      code: "approval_not_pending",
    });
    // A settled call awaits nothing either.
    expect(await rejection(session.answerApproval("a-lookup", { decision: "allow" }))).toMatchObject({
      code: "approval_not_pending",
    });
    expect(
      await rejection(session.answerApproval("a-send", { decision: "maybe" } as unknown as { decision: "allow" })),
    ).toMatchObject({ code: "input_invalid" });
    expect(await readFile(join(directory, "approval.jsonl"))).toEqual(before);
    expect(session.pendingApprovals()).toHaveLength(1);
  });

  it("answered allow: the answer is saved, survives a reopen, and resume() runs the call without asking again", async () => {
    const asked: string[] = [];
    // The adapter would deny: an approved call that asked it again would not run.
    const first = await reopen([], recordingApproval(asked, "deny"));
    await first.session.answerApproval("a-send", { decision: "allow", reason: "fine by me" });
    expect((await fileRecords(first.directory, "approval")).at(-1)).toEqual({
      kind: "approval-answer",
      runId: killedRunId,
      toolCallId: "a-send",
      decision: "allow",
      reason: "fine by me",
    });
    expect(first.session.pendingApprovals()).toEqual([]);
    expect(await rejection(first.session.answerApproval("a-send", { decision: "deny" }))).toMatchObject({
      code: "approval_not_pending",
    });
    await first.session.close();

    // A later process finds the answer in the store.
    const { session, model, executed, directory } = await reopen(
      [{ text: "sent it" }],
      recordingApproval(asked, "deny"),
      first.directory,
    );
    expect(session.interruptedRun()?.unsettled).toEqual([
      { toolCallId: "a-send", toolName: "send", input: sendInput, state: "approved", idempotent: false },
    ]);
    expect(session.pendingApprovals()).toEqual([]);
    const run = session.resume();
    const events = await collect(run);
    expect((await run.result).text).toBe("sent it");

    expect(asked).toEqual([]);
    expect(executed).toEqual([{ name: "send", toolCallId: "a-send", input: sendInput }]);
    expect(events.find((event) => event.kind === "tool-permission")).toEqual({
      kind: "tool-permission",
      runId: killedRunId,
      turn: 1,
      toolCallId: "a-send",
      toolName: "send",
      decision: "allow",
      decidedBy: "approval",
      reason: "fine by me",
    });
    expect(events.find((event) => event.kind === "tool-end")).toMatchObject({
      toolCallId: "a-send",
      result: { isError: false, content: [{ type: "text", text: "send done after approval" }] },
    });
    await session.close();

    const records = await fileRecords(directory, "approval");
    // One request and one answer for the call: resuming saved neither again.
    expect(records.filter((record) => record.kind === "approval-request")).toHaveLength(1);
    expect(records.filter((record) => record.kind === "approval-answer")).toHaveLength(1);
    expect(records.at(-1)).toEqual({ kind: "run-end", runId: killedRunId, status: "completed", stopReason: "end" });
    expect(model.requests).toHaveLength(1);
  });

  it("answered deny: resume() does not run the call and the model gets the permission-denied result", async () => {
    const asked: string[] = [];
    const { session, model, executed } = await reopen([{ text: "understood" }], recordingApproval(asked, "allow"));
    await session.answerApproval("a-send", { decision: "deny", reason: "not today" });
    expect(session.interruptedRun()?.unsettled[0]?.state).toBe("denied");
    const run = session.resume();
    const events = await collect(run);
    expect((await run.result).text).toBe("understood");

    expect(asked).toEqual([]);
    expect(executed).toEqual([]);
    expect(events.some((event) => event.kind === "tool-start")).toBe(false);
    expect(events.find((event) => event.kind === "tool-permission")).toMatchObject({
      decision: "deny",
      decidedBy: "approval",
      reason: "not today",
    });
    expect((model.requests[0] as ModelRequest).messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "a-send",
      toolName: "send",
      content: [{ type: "text", text: 'Permission denied for tool "send": not today' }],
      isError: true,
    });
  });

  it.each([
    ["deny", "no, thanks"],
    ["allow", "go ahead"],
  ] as const)(
    "left unanswered: resume() asks the current adapter again once, and its %s is respected",
    async (decision, reason) => {
      const asked: string[] = [];
      const { session, model, executed, directory } = await reopen(
        [{ text: "after asking again" }],
        recordingApproval(asked, decision, reason),
      );
      const run = session.resume();
      await collect(run);
      expect((await run.result).text).toBe("after asking again");

      expect(asked).toEqual(["a-send"]);
      const last = (model.requests[0] as ModelRequest).messages.at(-1);
      if (decision === "deny") {
        expect(executed).toEqual([]);
        expect(last).toMatchObject({
          role: "tool",
          toolCallId: "a-send",
          isError: true,
          content: [{ type: "text", text: `Permission denied for tool "send": ${reason}` }],
        });
      } else {
        expect(executed).toEqual([{ name: "send", toolCallId: "a-send", input: sendInput }]);
        expect(last).toMatchObject({ role: "tool", toolCallId: "a-send", isError: false });
      }
      await session.close();
      const records = await fileRecords(directory, "approval");
      // The request was not saved a second time; the new answer was.
      expect(records.filter((record) => record.kind === "approval-request")).toHaveLength(1);
      expect(records.filter((record) => record.kind === "approval-answer")).toEqual([
        { kind: "approval-answer", runId: killedRunId, toolCallId: "a-send", decision, reason },
      ]);
    },
  );

  it("a new Run instead of resume settles the pending call as not run", async () => {
    const asked: string[] = [];
    const { session, executed } = await reopen([{ text: "moving on" }], recordingApproval(asked, "allow"));
    const run = session.run("never mind");
    const events = await collect(run);
    expect((await run.result).text).toBe("moving on");
    expect(events[0]).toMatchObject({
      kind: "run-interrupted",
      interruptedRunId: killedRunId,
      toolCalls: [{ toolCallId: "a-send", toolName: "send", outcome: "not-run" }],
    });
    expect(asked).toEqual([]);
    expect(executed).toEqual([]);
    expect(session.pendingApprovals()).toEqual([]);
    expect(await rejection(session.answerApproval("a-send", { decision: "allow" }))).toMatchObject({
      code: "approval_not_pending",
    });
  });

  it("can be answered and resumed by another process, through the store alone", async () => {
    const directory = await copyOfLog();
    const child = startFixture("interrupt-child.ts", ["answer"], {
      SESSION_DIRECTORY: directory,
      SESSION_ID: "approval",
    });
    const exit = await child.exited;
    expect(exit.code, exit.stderr).toBe(0);
    const [listed, executed, finished] = exit.lines as any[];
    expect(listed.pending).toEqual([
      { runId: killedRunId, turn: 1, toolCallId: "a-send", toolName: "send", input: sendInput, readOnly: false },
    ]);
    expect(listed.interrupted.unsettled[0].state).toBe("awaiting-approval");
    // Its adapter was never asked (it would have printed a line and denied).
    expect(exit.lines.some((line: any) => line.asked)).toBe(false);
    expect(executed).toMatchObject({ executed: "send", toolCallId: "a-send", runId: killedRunId, input: sendInput });
    expect(finished.result).toMatchObject({ runId: killedRunId, text: "approved and sent", interrupted: null });
    expect(finished.result.kinds[0]).toBe("run-resume");

    // And this process sees the settled Session.
    const { session } = await reopen([], recordingApproval([], "deny"), directory);
    expect(session.interruptedRun()).toBeUndefined();
    expect(session.pendingApprovals()).toEqual([]);
    const records = await fileRecords(directory, "approval");
    expect(records.filter((record) => record.kind === "approval-answer")).toEqual([
      { kind: "approval-answer", runId: killedRunId, toolCallId: "a-send", decision: "allow", reason: "looks fine" },
    ]);
  });
});
