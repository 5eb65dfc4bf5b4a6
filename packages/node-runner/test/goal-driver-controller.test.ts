// createGoalDriverController under fake timers: it starts disarmed, the cooldown and the
// allowance (the initial Run not counted), accept refusing stale facts, wake keeping the
// deadline, cancel and close, and generations: an old one's failure reaches onError without
// disarming the new one.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createGoalDriverController,
  type Goal,
  type GoalAdmission,
  type GoalContinueDecision,
  type GoalDriveDecision,
  type GoalDriverFacts,
} from "../src/index.js";
import { latch } from "./support/index.ts";

function goalOf(overrides: Partial<Goal> = {}): Goal {
  return {
    id: "goal-1",
    sessionId: "s",
    objective: "Ship it",
    status: "active",
    revision: 1,
    createdAt: "2026-12-01T00:00:00.000Z",
    updatedAt: "2026-12-01T00:00:00.000Z",
    ...overrides,
  };
}

interface Harness {
  facts: GoalDriverFacts;
  readonly admitted: GoalContinueDecision[];
  readonly decisions: { decision: GoalDriveDecision; generation: number }[];
  readonly errors: { error: unknown; generation: number }[];
  observed: number;
  /** What admit does; default: accept the current facts. */
  admit: (goal: Goal, decision: GoalContinueDecision, admission: GoalAdmission) => Promise<boolean>;
}

function setup(policy = { idleMs: 1_000, maxCheckins: 2 }) {
  const h: Harness = {
    facts: { goal: goalOf(), queuedInput: false, interactionPending: false, runActive: false },
    admitted: [],
    decisions: [],
    errors: [],
    observed: 0,
    admit: async (_goal, decision, admission) => {
      if (!admission.accept(h.facts)) return false;
      h.admitted.push(decision);
      return true;
    },
  };
  const controller = createGoalDriverController({
    policy,
    observe: () => {
      h.observed += 1;
      return Promise.resolve(h.facts);
    },
    admit: (goal, decision, admission) => h.admit(goal, decision, admission),
    onError: (error, info) => h.errors.push({ error, generation: info.generation }),
    onDecision: (decision, info) => h.decisions.push({ decision, generation: info.generation }),
  });
  return { h, controller };
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-12-01T00:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createGoalDriverController", () => {
  it("starts disarmed: a restored Goal alone starts nothing", async () => {
    const { h, controller } = setup();
    expect(controller.snapshot()).toEqual({
      armed: false,
      generation: 0,
      admitted: 0,
      remaining: 2,
      nextCheckAt: null,
      preparing: false,
    });
    controller.wake();
    controller.idle();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(h.observed).toBe(0);
    expect(h.admitted).toEqual([]);
  });

  it("admits the initial Run at once without counting it, then one check-in per cooldown up to the allowance", async () => {
    const { h, controller } = setup();
    controller.arm({ initialRun: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.admitted.map((decision) => [decision.initial, decision.checkin, decision.remaining])).toEqual([
      [true, 0, 2],
    ]);
    expect(controller.snapshot()).toMatchObject({ armed: true, generation: 1, admitted: 0, remaining: 2 });

    controller.idle();
    const start = Date.now();
    expect(controller.snapshot().nextCheckAt).toBe(start + 1_000);
    await vi.advanceTimersByTimeAsync(999);
    expect(h.admitted).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.admitted.map((decision) => [decision.initial, decision.checkin, decision.remaining])).toEqual([
      [true, 0, 2],
      [false, 1, 1],
    ]);
    expect(controller.snapshot()).toMatchObject({ admitted: 1, remaining: 1, nextCheckAt: null });

    controller.idle();
    await vi.advanceTimersByTimeAsync(1_000);
    controller.idle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.admitted).toHaveLength(3);
    expect(h.decisions.map((entry) => entry.decision.kind)).toEqual(["allowance-exhausted"]);
    expect(controller.snapshot()).toMatchObject({ armed: false, admitted: 2, remaining: 0 });
  });

  it("counts every continuation when armed without initialRun, the first after a cooldown", async () => {
    const { h, controller } = setup({ idleMs: 500, maxCheckins: 1 });
    controller.arm();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.observed).toBe(0);
    await vi.advanceTimersByTimeAsync(500);
    expect(h.admitted.map((decision) => [decision.initial, decision.checkin])).toEqual([[false, 1]]);
    controller.idle();
    await vi.advanceTimersByTimeAsync(500);
    expect(h.decisions.map((entry) => entry.decision.kind)).toEqual(["allowance-exhausted"]);
  });

  it("an accept that returns false admits nothing and leaves the generation armed without a deadline", async () => {
    const { h, controller } = setup();
    h.admit = async (_goal, _decision, admission) =>
      admission.accept({ queuedInput: true, interactionPending: false, runActive: false });
    controller.arm({ initialRun: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(controller.snapshot()).toMatchObject({ armed: true, admitted: 0, nextCheckAt: null, preparing: false });

    // A continuation claimed against a Goal paused meanwhile is refused too, and counts nothing.
    h.admit = async (_goal, _decision, admission) =>
      admission.accept({
        queuedInput: false,
        interactionPending: false,
        runActive: false,
        goal: goalOf({ status: "paused" }),
      });
    controller.arm();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(controller.snapshot()).toMatchObject({ armed: true, generation: 2, admitted: 0 });

    // accept claims at most once.
    const results: boolean[] = [];
    h.admit = async (_goal, _decision, admission) => {
      results.push(admission.accept(h.facts), admission.accept(h.facts));
      return true;
    };
    controller.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(results).toEqual([true, false]);
    expect(controller.snapshot().admitted).toBe(1);
  });

  it("reports each hold: host facts keep it armed, the Goal's state disarms it", async () => {
    const { h, controller } = setup();
    const cases: [Partial<GoalDriverFacts>, string, boolean][] = [
      [{ queuedInput: true }, "queued-input", true],
      [{ interactionPending: true }, "interaction-pending", true],
      [{ runActive: true }, "run-active", true],
      [{ goal: goalOf({ status: "paused" }) }, "paused", false],
      [{ goal: goalOf({ status: "blocked" }) }, "blocked", false],
      [{ goal: goalOf({ status: "complete" }) }, "complete", false],
      [{ goal: null }, "deleted", false],
      [{ goal: goalOf({ id: "goal-2" }) }, "replaced", false],
    ];
    for (const [facts, kind, armed] of cases) {
      h.facts = { goal: goalOf(), queuedInput: false, interactionPending: false, runActive: false, ...facts };
      controller.arm({ initialRun: true, goalId: "goal-1" });
      await vi.advanceTimersByTimeAsync(0);
      expect(h.decisions.at(-1)?.decision.kind).toBe(kind);
      expect(controller.snapshot().armed).toBe(armed);
    }
    expect(h.admitted).toEqual([]);
  });

  it("wake before the deadline keeps it and admits nothing; a Goal paused meanwhile is reported at once", async () => {
    const { h, controller } = setup();
    controller.arm();
    const deadline = controller.snapshot().nextCheckAt;
    await vi.advanceTimersByTimeAsync(400);
    controller.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.observed).toBe(1);
    expect(h.admitted).toEqual([]);
    expect(controller.snapshot().nextCheckAt).toBe(deadline);
    await vi.advanceTimersByTimeAsync(600);
    expect(h.admitted).toHaveLength(1);

    // After a host hold there is no deadline: wake checks and admits.
    h.facts = { ...h.facts, queuedInput: true };
    controller.idle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.decisions.at(-1)?.decision.kind).toBe("queued-input");
    h.facts = { ...h.facts, queuedInput: false };
    controller.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.admitted).toHaveLength(2);

    controller.idle();
    h.facts = { ...h.facts, goal: goalOf({ status: "paused" }) };
    controller.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.decisions.at(-1)?.decision.kind).toBe("paused");
    expect(controller.snapshot()).toMatchObject({ armed: false, nextCheckAt: null });
  });

  it("cancel clears the deadline and aborts preparation; close waits for it", async () => {
    const { h, controller } = setup();
    const preparing = latch<boolean>();
    let signal: AbortSignal | undefined;
    h.admit = (_goal, _decision, admission) => {
      signal = admission.signal;
      return preparing.promise.then((value) => value && admission.accept(h.facts));
    };
    controller.arm({ initialRun: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(controller.snapshot().preparing).toBe(true);
    controller.cancel();
    expect(signal?.aborted).toBe(true);
    expect(controller.snapshot()).toMatchObject({ armed: false, nextCheckAt: null });
    let closed = false;
    const closing = controller.close().then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toBe(false);
    preparing.resolve(true);
    await closing;
    // The preparation finished after the cancel: its accept was refused, nothing counted.
    expect(controller.snapshot()).toMatchObject({ admitted: 0, preparing: false });
    expect(() => controller.arm()).toThrow(expect.objectContaining({ code: "goal_driver_invalid" }));
  });

  it("an old generation's failure reaches onError without disarming the new one", async () => {
    const { h, controller } = setup();
    const first = latch<void>();
    let firstAdmission: GoalAdmission | undefined;
    h.admit = async (_goal, _decision, admission) => {
      firstAdmission = admission;
      await first.promise;
      throw new Error("preparation failed");
    };
    controller.arm({ initialRun: true });
    await vi.advanceTimersByTimeAsync(0);
    h.admit = async (_goal, decision, admission) => {
      if (!admission.accept(h.facts)) return false;
      h.admitted.push(decision);
      return true;
    };
    controller.arm({ initialRun: true });
    expect(firstAdmission?.signal.aborted).toBe(true);
    expect(firstAdmission?.accept(h.facts)).toBe(false);
    first.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.errors.map((entry) => [entry.generation, (entry.error as Error).message])).toEqual([
      [1, "preparation failed"],
    ]);
    // The second generation's initial check ran once the first settled.
    expect(h.admitted.map((decision) => decision.initial)).toEqual([true]);
    expect(controller.snapshot()).toMatchObject({ armed: true, generation: 2 });

    // A current generation's failure disarms it.
    h.admit = async () => {
      throw new Error("now");
    };
    controller.idle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.errors.at(-1)).toMatchObject({ generation: 2 });
    expect(controller.snapshot().armed).toBe(false);
  });

  it("refuses a malformed policy or missing functions", () => {
    const base = { observe: () => ({}) as never, admit: async () => false, onError: () => undefined };
    expect(() => createGoalDriverController({ ...base, policy: { idleMs: -1 } })).toThrow(/idleMs/);
    expect(() => createGoalDriverController({ ...base, policy: { maxCheckins: 1.5 } })).toThrow(/maxCheckins/);
    expect(() => createGoalDriverController({ ...base, admit: undefined as never })).toThrow(
      expect.objectContaining({ code: "goal_driver_invalid" }),
    );
  });
});
