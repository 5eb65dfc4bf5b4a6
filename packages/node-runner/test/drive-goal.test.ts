// driveGoal on a real Runner with a scripted model and a millisecond cooldown: every decision
// (complete, blocked, paused, deleted, replaced, queued-input, interaction-pending, run-active,
// allowance-exhausted, run-stopped, aborted), the input ids it gives, an explicit objective
// (conflict, never resuming a paused Goal), its preconditions, the Session's close cancelling
// the cooldown, and the Store across two OS processes (one opens the Goal, this one drives it).
import { join } from "node:path";
import { defineAgent, defineTool, type ModelRequest, type RunEvent } from "@castellan/harness";
import { type ScriptedStep, type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  createFileGoalStore,
  createFileSessionStore,
  createNodeRunner,
  type DriveGoalOptions,
  driveGoal,
  type GoalContinueDecision,
  type GoalDriveDecision,
  type GoalStore,
  goal,
  openSession,
  type Run,
  type Session,
} from "../src/index.js";
import { startFixture } from "./fixtures/child.ts";
import { collect, stoppingStore, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-drive-goal-");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A step that settles the Goal the turn's context shows. */
function settle(status: "complete" | "blocked"): (request: ModelRequest) => ScriptedStep {
  return (request) => {
    const match = /Goal (\S+) \(active, revision \d+\): (.*)/.exec(request.context);
    return {
      toolCalls: [
        {
          name: "update_goal",
          input: { goalId: match?.[1] ?? "", objective: match?.[2] ?? "", status, summary: `Settled ${status}.` },
        },
      ],
    };
  };
}

async function setup(steps: readonly ScriptedStepSource[], options: { directory?: string; sessionId?: string } = {}) {
  const store = createFileGoalStore({ directory: options.directory ?? join(temp.path, "goals") });
  const model = scriptedModel(steps);
  const runner = await createNodeRunner({
    agent: defineAgent("test.drive", { model, capabilities: [goal({ store })] }),
    permissions: "full-access",
  });
  const session = await runner.createSession({ id: options.sessionId ?? "drive" });
  cleanups.push(async () => {
    await runner.close();
    await store.close();
  });
  return { store, model, runner, session };
}

interface Driven {
  readonly runs: Run[];
  readonly events: RunEvent[][];
  readonly decisions: (GoalDriveDecision | GoalContinueDecision)[];
}

function driveOptions(store: GoalStore, overrides: Partial<DriveGoalOptions> = {}): DriveGoalOptions & Driven {
  const runs: Run[] = [];
  const events: RunEvent[][] = [];
  const decisions: (GoalDriveDecision | GoalContinueDecision)[] = [];
  return {
    store,
    policy: { idleMs: 1, maxCheckins: 5 },
    observe: () => ({ queuedInput: false, interactionPending: false }),
    async onRun(run) {
      runs.push(run);
      events.push(await collect(run));
    },
    onDecision(decision) {
      decisions.push(decision);
    },
    runs,
    events,
    decisions,
    ...overrides,
  };
}

describe("driveGoal", () => {
  it("runs at once and stops when the agent completes the Goal; each input carries a Goal input id", async () => {
    const s = await setup([{ text: "working" }, settle("complete"), { text: "done" }]);
    const options = driveOptions(s.store, { objective: "Make the tests pass" });
    const result = await driveGoal(s.session, options);
    expect(result.runs).toBe(2);
    expect(result.decision).toMatchObject({
      kind: "complete",
      goal: { status: "complete", summary: "Settled complete." },
    });
    expect(options.decisions.map((decision) => decision.kind)).toEqual(["continue", "complete"]);
    const goalId = encodeURIComponent((await s.store.read("drive"))?.id ?? "");
    const starts = options.events.map((events) => events.find((event) => event.kind === "run-start"));
    const ids = starts.map((start) => (start as { inputId?: string }).inputId ?? "");
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      expect(id).toMatch(
        new RegExp(`^castellan\\.goal/${goalId}/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
      );
    }
    expect(new Set(ids).size).toBe(2);
    // The first input asks for the work; the second is a check-in.
    expect(JSON.stringify(s.model.requests[0]?.messages)).toContain("Work toward the Session's Goal");
    expect(JSON.stringify(s.model.requests[1]?.messages)).toContain("Check-in 1 on the Session's Goal");
    // The Session stays open and usable.
    await s.session.run("thanks").result.catch(() => undefined);
  });

  it("returns allowance-exhausted after maxCheckins automatic Runs, leaving the Goal active", async () => {
    const s = await setup([{ text: "1" }, { text: "2" }, { text: "3" }]);
    const options = driveOptions(s.store, { objective: "Long work", policy: { idleMs: 1, maxCheckins: 2 } });
    const result = await driveGoal(s.session, options);
    expect(result).toMatchObject({ runs: 3, decision: { kind: "allowance-exhausted", goal: { status: "active" } } });
    expect((await s.store.read("drive"))?.status).toBe("active");
    s.model.assertComplete();
  });

  it("returns blocked when the agent settles the Goal blocked, and never resumes it on the next call", async () => {
    const s = await setup([settle("blocked"), { text: "stopped" }]);
    const first = await driveGoal(s.session, driveOptions(s.store, { objective: "Port the build" }));
    expect(first).toMatchObject({ runs: 1, decision: { kind: "blocked" } });
    // The same objective again: the blocked Goal stays blocked; no Run starts.
    const second = await driveGoal(s.session, driveOptions(s.store, { objective: "Port the build" }));
    expect(second).toMatchObject({ runs: 0, decision: { kind: "blocked", goal: { status: "blocked" } } });
    s.model.assertComplete();
  });

  it("rejects a different unfinished objective with goal_conflict, and holds on a paused Goal", async () => {
    const s = await setup([]);
    await s.store.control({ sessionId: "drive", action: "open", objective: "First" });
    await expect(driveGoal(s.session, driveOptions(s.store, { objective: "Second" }))).rejects.toMatchObject({
      code: "goal_conflict",
    });
    await s.store.control({ sessionId: "drive", action: "pause" });
    const paused = await driveGoal(s.session, driveOptions(s.store));
    expect(paused).toMatchObject({ runs: 0, decision: { kind: "paused" } });
    await s.store.control({ sessionId: "drive", action: "delete" });
    expect(await driveGoal(s.session, driveOptions(s.store))).toMatchObject({ runs: 0, decision: { kind: "deleted" } });
  });

  it("returns paused, deleted or replaced when the host changes the Goal during a Run", async () => {
    for (const change of ["pause", "delete", "replace"] as const) {
      const s = await setup([{ text: "working" }], { sessionId: `change-${change}` });
      const id = `change-${change}`;
      const options = driveOptions(s.store, {
        objective: "Tidy up",
        async onRun(run) {
          await collect(run);
          if (change === "pause") await s.store.control({ sessionId: id, action: "pause" });
          else {
            await s.store.control({ sessionId: id, action: "delete" });
            if (change === "replace") await s.store.control({ sessionId: id, action: "open", objective: "Other" });
          }
        },
      });
      const result = await driveGoal(s.session, options);
      expect(result.runs).toBe(1);
      expect(result.decision.kind).toBe(change === "pause" ? "paused" : change === "delete" ? "deleted" : "replaced");
    }
  });

  it("rereads an edited objective and goes on with it", async () => {
    const s = await setup([{ text: "working" }, settle("complete"), { text: "done" }]);
    const options = driveOptions(s.store, {
      objective: "Old wording",
      async onRun(run) {
        await collect(run);
        if (s.model.requests.length === 1) {
          await s.store.control({ sessionId: "drive", action: "edit", objective: "New wording" });
        }
      },
    });
    const result = await driveGoal(s.session, options);
    expect(result).toMatchObject({ runs: 2, decision: { kind: "complete", goal: { objective: "New wording" } } });
    expect(s.model.requests[1]?.context).toContain("(active, revision 2): New wording");
  });

  it("holds on queued input or a pending interaction, read after onDecision and before admission", async () => {
    for (const fact of ["queuedInput", "interactionPending"] as const) {
      const s = await setup([{ text: "working" }], { sessionId: `hold-${fact}` });
      let flagged = false;
      const options = driveOptions(s.store, {
        objective: "Hold me",
        observe: () => ({
          queuedInput: fact === "queuedInput" && flagged,
          interactionPending: fact === "interactionPending" && flagged,
        }),
        onDecision(decision) {
          options.decisions.push(decision);
          // The host learns of the input while handling the decision: the recheck sees it.
          flagged = true;
        },
      });
      const result = await driveGoal(s.session, options);
      expect(options.decisions.map((decision) => decision.kind)).toEqual(["continue"]);
      expect(result).toMatchObject({
        runs: 1,
        decision: { kind: fact === "queuedInput" ? "queued-input" : "interaction-pending" },
      });
    }
    // Facts that hold from the start admit nothing.
    const s = await setup([], { sessionId: "hold-start" });
    const options = driveOptions(s.store, {
      objective: "Wait",
      observe: () => ({ queuedInput: true, interactionPending: false }),
    });
    expect(await driveGoal(s.session, options)).toMatchObject({ runs: 0, decision: { kind: "queued-input" } });
  });

  it("holds with run-active when another Run is active at the check-in", async () => {
    const s = await setup([{ text: "working" }, { hang: true, text: "" }]);
    const user = new AbortController();
    let userRun: Run | undefined;
    const options = driveOptions(s.store, {
      objective: "Share the Session",
      policy: { idleMs: 20, maxCheckins: 5 },
      onDecision(decision) {
        options.decisions.push(decision);
        if (decision.kind === "continue") userRun = s.session.run("the user's own question", { signal: user.signal });
      },
    });
    const result = await driveGoal(s.session, options);
    expect(result).toMatchObject({ runs: 1, decision: { kind: "run-active" } });
    user.abort();
    await userRun?.result.catch(() => undefined);
  });

  it("names live command sessions in the check-in without waiting for them", async () => {
    const s = await setup([{ text: "started the server" }, settle("complete"), { text: "done" }]);
    const options = driveOptions(s.store, {
      objective: "Serve it",
      observe: () => ({
        queuedInput: false,
        interactionPending: false,
        activeCommandSessions: [{ id: "cmd-1", command: "npm run dev" }],
      }),
    });
    const result = await driveGoal(s.session, options);
    expect(result.decision.kind).toBe("complete");
    expect(JSON.stringify(s.model.requests[1]?.messages)).toContain(
      "Command sessions still running (you need not wait for them to finish): cmd-1 (npm run dev).",
    );
  });

  it("returns run-stopped with the status of a Run that failed", async () => {
    const s = await setup([{ error: new Error("provider down") }]);
    const result = await driveGoal(s.session, driveOptions(s.store, { objective: "Try" }));
    expect(result).toMatchObject({ runs: 1, decision: { kind: "run-stopped", status: "failed" } });
  });

  it("signal aborts the driver and its own Run, not the Session; an abort in the cooldown returns aborted too", async () => {
    const stop = new AbortController();
    // The driver is stopped while its Run waits on the model.
    const s = await setup([
      () => {
        stop.abort();
        return { hang: true, text: "" };
      },
      { text: "after" },
      { text: "next" },
    ]);
    const options = driveOptions(s.store, { objective: "Stop me", signal: stop.signal });
    const result = await driveGoal(s.session, options);
    expect(result).toMatchObject({ runs: 1, decision: { kind: "aborted" } });
    await expect(options.runs[0]?.result).rejects.toMatchObject({ code: "run_aborted" });
    expect(s.session.signal.aborted).toBe(false);

    const cooling = new AbortController();
    const second = driveOptions(s.store, {
      policy: { idleMs: 60_000, maxCheckins: 5 },
      signal: cooling.signal,
      onDecision(decision) {
        if (decision.kind === "continue") setImmediate(() => cooling.abort());
      },
    });
    expect(await driveGoal(s.session, second)).toMatchObject({ runs: 1, decision: { kind: "aborted" } });
    await s.session.run("still open").result;
  });

  it("closing the Session cancels the cooldown", async () => {
    const s = await setup([{ text: "working" }]);
    const options = driveOptions(s.store, {
      objective: "Close me",
      policy: { idleMs: 600_000, maxCheckins: 5 },
      onDecision(decision) {
        if (decision.kind === "continue") setImmediate(() => void s.session.close());
      },
    });
    const result = await driveGoal(s.session, options);
    expect(result).toMatchObject({ runs: 1, decision: { kind: "aborted" } });
  });

  it("refuses a Session it cannot drive with goal_driver_invalid", async () => {
    const s = await setup([{ hang: true, text: "" }]);
    const other = createFileGoalStore({ directory: join(temp.path, "other") });
    cleanups.push(() => other.close());
    await expect(driveGoal(s.session, driveOptions(other))).rejects.toMatchObject({
      code: "goal_driver_invalid",
      message: expect.stringContaining("another store"),
    });
    await expect(driveGoal(s.session, { ...driveOptions(s.store), policy: { idleMs: -5 } })).rejects.toMatchObject({
      code: "goal_driver_invalid",
      message: expect.stringContaining("idleMs"),
    });
    const stop = new AbortController();
    const active = s.session.run("busy", { signal: stop.signal });
    await expect(driveGoal(s.session, driveOptions(s.store))).rejects.toMatchObject({
      code: "goal_driver_invalid",
      message: expect.stringContaining("active Run"),
    });
    stop.abort();
    await active.result.catch(() => undefined);

    const plain = await createNodeRunner({
      agent: defineAgent("test.plain", { model: scriptedModel([]) }),
      permissions: "full-access",
    });
    cleanups.push(() => plain.close());
    const session: Session = await plain.createSession();
    await expect(driveGoal(session, driveOptions(s.store))).rejects.toMatchObject({
      code: "goal_driver_invalid",
      message: expect.stringContaining("does not declare goal()"),
    });
    await session.close();
    await expect(driveGoal(session, driveOptions(s.store))).rejects.toMatchObject({
      code: "goal_driver_invalid",
      message: expect.stringContaining("closed"),
    });
  });

  it("never takes up a Run a stopped process left unfinished", async () => {
    const store = createFileGoalStore({ directory: join(temp.path, "stopped-goals") });
    cleanups.push(() => store.close());
    await store.control({ sessionId: "stopped", action: "open", objective: "Survive a crash" });
    const inner = createFileSessionStore({ directory: join(temp.path, "stopped-sessions") });
    const slow = defineTool({ name: "slow", description: "Takes a while", execute: () => "done" });
    const agentOf = (steps: readonly ScriptedStepSource[]) =>
      defineAgent("test.drive-stopped", {
        model: scriptedModel(steps),
        tools: [slow],
        capabilities: [goal({ store })],
      });
    // The process that dies once the call's intent is about to be saved.
    const crashing = stoppingStore(inner, (records) => records.some((record) => record.kind === "tool-start"));
    const dead = await openSession({
      agent: agentOf([{ toolCalls: [{ name: "slow", input: {} }] }]),
      id: "stopped",
      store: crashing.store,
      permissions: "full-access",
    });
    void dead.run("work").result.catch(() => undefined);
    await crashing.stopped;

    const model = scriptedModel([]);
    const live = await openSession({
      agent: defineAgent("test.drive-stopped", { model, tools: [slow], capabilities: [goal({ store })] }),
      id: "stopped",
      store: inner,
      permissions: "full-access",
    });
    cleanups.push(() => live.close());
    expect(live.interruptedRun()?.status).toBe("interrupted");
    await expect(driveGoal(live, driveOptions(store))).rejects.toMatchObject({
      code: "goal_driver_invalid",
      message: expect.stringContaining("stopped process"),
    });
    expect(model.requests).toHaveLength(0);
    expect(live.interruptedRun()?.status).toBe("interrupted");
  });

  it("drives a Goal another OS process opened in the shared store", async () => {
    const directory = join(temp.path, "shared");
    const child = await startFixture("goal-child.ts", [], { GOAL_DIRECTORY: directory, SESSION_ID: "shared" }).exited;
    expect(child.code).toBe(0);
    const opened = (child.lines[0] as { goal: { id: string } }).goal;
    const s = await setup([settle("complete"), { text: "done" }], { directory, sessionId: "shared" });
    const result = await driveGoal(s.session, driveOptions(s.store));
    expect(result).toMatchObject({
      runs: 1,
      decision: { kind: "complete", goal: { id: opened.id, status: "complete" } },
    });
  });
});
