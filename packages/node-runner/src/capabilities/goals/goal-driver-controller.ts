import { checkPolicy, endsGeneration, holdFor } from "./driver-decision.js";
import type {
  GoalContinueDecision,
  GoalDriveDecision,
  GoalDriverFacts,
  GoalDriverPolicy,
  GoalHostFacts,
} from "./driver-types.js";
import { GoalDriverInvalidError } from "./errors.js";
import type { Goal } from "./types.js";

/** What `admit` is handed to claim one continuation. */
export interface GoalAdmission {
  /** Aborted when the generation is cancelled, replaced or the controller closes: stop preparing. */
  readonly signal: AbortSignal;
  /**
   * Claims the continuation with facts read just now. Synchronous: returns true only when the
   * generation is still current and armed, the facts show no hold and the allowance has room,
   * and then counts it; the host admits the input durably right after, with no await between.
   * A `goal` in the facts is checked too; without one the observed Goal stands.
   */
  accept(freshFacts: GoalHostFacts & { readonly runActive: boolean; readonly goal?: Goal | null }): boolean;
}

/** Options of {@link createGoalDriverController}. */
export interface GoalDriverControllerOptions {
  /** The Goal read fresh and the host's facts, at each check. */
  observe(): GoalDriverFacts | Promise<GoalDriverFacts>;
  /**
   * Prepares and admits one continuation. Resolves true only for a submission that
   * `admission.accept` accepted and the host then admitted.
   */
  admit(goal: Goal, decision: GoalContinueDecision, admission: GoalAdmission): Promise<boolean>;
  /** Cooldown and allowance. Defaults: 60,000 ms and 5 check-ins. */
  readonly policy?: GoalDriverPolicy;
  /** A failure of `observe` or `admit`. A current generation is disarmed by it; an older one's failure changes nothing. */
  onError(error: unknown, info: { readonly generation: number }): void;
  /**
   * A hold a check found, with its generation. After `queued-input`, `interaction-pending` and
   * `run-active` the generation stays armed, without a deadline, until `wake()` or `idle()`;
   * every other hold disarms it.
   */
  onDecision?(decision: GoalDriveDecision, info: { readonly generation: number }): void;
}

/** What a host shows of a controller. */
export interface GoalDriverSnapshot {
  readonly armed: boolean;
  /** 0 before the first `arm`; each `arm` adds one. */
  readonly generation: number;
  /** Continuations this generation admitted and counted. */
  readonly admitted: number;
  /** Check-ins left in this generation. */
  readonly remaining: number;
  /** When the next check is due (ms since the epoch), or null when none is scheduled. */
  readonly nextCheckAt: number | null;
  /** A check or a preparation is in flight. */
  readonly preparing: boolean;
}

/** The cooldown, allowance and cancellation generations behind `driveGoal`, for hosts with their own input queue. */
export interface GoalDriverController {
  /**
   * Starts a new generation (on explicit user activity), cancelling the old one. With
   * `initialRun` the first continuation is checked at once and not counted; otherwise the first
   * check waits for the cooldown. `goalId` fixes the Goal identity the generation works on
   * (default: the first Goal it observes). Throws after `close()`.
   */
  arm(options?: { readonly initialRun?: boolean; readonly goalId?: string }): void;
  /** Rechecks the facts now without moving the deadline: a hold is reported; a due check may admit. */
  wake(): void;
  /** Starts a fresh cooldown (after a Run settled). Ignored while disarmed. */
  idle(): void;
  /** Disarms: clears the deadline and aborts a preparation in flight. */
  cancel(): void;
  /** Cancels and waits for a preparation in flight. Idempotent. */
  close(): Promise<void>;
  snapshot(): GoalDriverSnapshot;
}

interface Generation {
  readonly number: number;
  readonly abort: AbortController;
  goalId: string | undefined;
  initialPending: boolean;
  admitted: number;
}

/**
 * Creates a controller. It starts disarmed, so a restored Goal alone never starts work; every
 * admitted continuation counts toward `policy.maxCheckins` except the first of
 * `arm({ initialRun: true })`. Checks run one at a time.
 */
export function createGoalDriverController(options: GoalDriverControllerOptions): GoalDriverController {
  if (options === null || typeof options !== "object") {
    throw new GoalDriverInvalidError("createGoalDriverController: options must be an object.");
  }
  for (const name of ["observe", "admit", "onError"] as const) {
    if (typeof options[name] !== "function") {
      throw new GoalDriverInvalidError(`createGoalDriverController: ${name} must be a function.`);
    }
  }
  const policy = checkPolicy(options.policy, "createGoalDriverController");
  let generation: Generation | undefined;
  let count = 0;
  let armed = false;
  let closed = false;
  let nextCheckAt: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> | undefined;
  /** A check that came due (or a generation armed) while other work was in flight; it starts when that settles. */
  let deferred: Generation | undefined;

  const remaining = (current: Generation | undefined) =>
    current ? Math.max(0, policy.maxCheckins - current.admitted) : policy.maxCheckins;
  const isCurrent = (current: Generation) => armed && !closed && generation === current;

  function clearTimer(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    nextCheckAt = null;
  }

  function schedule(current: Generation): void {
    clearTimer();
    nextCheckAt = Date.now() + policy.idleMs;
    timer = setTimeout(() => {
      timer = undefined;
      start(current);
    }, policy.idleMs);
  }

  function disarm(): void {
    armed = false;
    clearTimer();
    generation?.abort.abort();
  }

  function fail(current: Generation, error: unknown): void {
    if (generation === current && armed) disarm();
    options.onError(error, { generation: current.number });
  }

  /** Runs one check or peek as the only work in flight; its failure goes to `fail`. */
  function track(current: Generation, work: (current: Generation) => Promise<void>): void {
    const settled: Promise<void> = work(current)
      .catch((error: unknown) => fail(current, error))
      .finally(() => {
        if (inFlight !== settled) return;
        inFlight = undefined;
        const next = deferred;
        deferred = undefined;
        if (next) start(next);
      });
    inFlight = settled;
  }

  function start(current: Generation): void {
    if (!isCurrent(current)) return;
    if (inFlight) {
      deferred = current;
      return;
    }
    track(current, check);
  }

  /** A recheck before the deadline: a hold that ends the generation is reported; nothing is admitted and the deadline stays. */
  async function peek(current: Generation): Promise<void> {
    const facts = await options.observe();
    if (!isCurrent(current)) return;
    if (current.goalId === undefined && facts.goal) current.goalId = facts.goal.id;
    const hold = holdFor(facts, {
      goalId: current.goalId,
      initial: current.initialPending,
      remaining: remaining(current),
    });
    // A host fact that holds now is left to the deadline's own check.
    if (!hold || !endsGeneration(hold)) return;
    disarm();
    options.onDecision?.(hold, { generation: current.number });
  }

  async function check(current: Generation): Promise<void> {
    clearTimer();
    const facts = await options.observe();
    if (!isCurrent(current)) return;
    const initial = current.initialPending;
    if (current.goalId === undefined && facts.goal) current.goalId = facts.goal.id;
    const hold = holdFor(facts, { goalId: current.goalId, initial, remaining: remaining(current) });
    if (hold) {
      if (endsGeneration(hold)) disarm();
      options.onDecision?.(hold, { generation: current.number });
      return;
    }
    const goal = facts.goal as Goal;
    const decision: GoalContinueDecision = Object.freeze({
      kind: "continue",
      goal,
      initial,
      checkin: initial ? 0 : current.admitted + 1,
      remaining: initial ? remaining(current) : remaining(current) - 1,
      activeCommandSessions: Object.freeze([...(facts.activeCommandSessions ?? [])]),
    });
    let claimed = false;
    const admission: GoalAdmission = {
      signal: current.abort.signal,
      accept(fresh) {
        if (claimed || !isCurrent(current) || current.abort.signal.aborted) return false;
        const merged: GoalDriverFacts = { ...fresh, goal: fresh.goal === undefined ? goal : fresh.goal };
        if (holdFor(merged, { goalId: current.goalId, initial, remaining: remaining(current) })) return false;
        claimed = true;
        if (initial) current.initialPending = false;
        else current.admitted += 1;
        return true;
      },
    };
    const admitted = await options.admit(goal, decision, admission);
    if (admitted === true && !claimed) {
      throw new GoalDriverInvalidError("admit resolved true without admission.accept accepting the submission.");
    }
  }

  return {
    arm(armOptions = {}) {
      if (closed) throw new GoalDriverInvalidError("The Goal driver controller is closed.");
      disarm();
      count += 1;
      const goalId = armOptions.goalId;
      if (goalId !== undefined && (typeof goalId !== "string" || goalId.length === 0)) {
        throw new GoalDriverInvalidError("arm: goalId must be a non-empty string.");
      }
      generation = {
        number: count,
        abort: new AbortController(),
        goalId,
        initialPending: armOptions.initialRun === true,
        admitted: 0,
      };
      armed = true;
      if (generation.initialPending) start(generation);
      else schedule(generation);
    },
    wake() {
      const current = generation;
      if (!current || !isCurrent(current) || inFlight) return;
      // A deadline still ahead stays where it is; only the facts are looked at now.
      if (nextCheckAt !== null && Date.now() < nextCheckAt) track(current, peek);
      else start(current);
    },
    idle() {
      const current = generation;
      if (!current || !isCurrent(current)) return;
      schedule(current);
    },
    cancel() {
      disarm();
    },
    async close() {
      closed = true;
      disarm();
      while (inFlight) await inFlight;
    },
    snapshot() {
      return Object.freeze({
        armed,
        generation: count,
        admitted: generation?.admitted ?? 0,
        remaining: remaining(generation),
        nextCheckAt,
        preparing: inFlight !== undefined,
      });
    },
  };
}
