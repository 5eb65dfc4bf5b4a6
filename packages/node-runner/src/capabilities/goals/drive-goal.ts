import { CastellanError, type ErrorInfo, errorMessage, type RunResult } from "@castellan/harness";
import type { Run } from "../../kernel/run/run.js";
import { NodeSession, type RunInput, type Session } from "../../kernel/session/session.js";
import { checkPolicy, holdFor } from "./driver-decision.js";
import type {
  GoalContinueDecision,
  GoalDriveDecision,
  GoalDriverFacts,
  GoalDriverPolicy,
  GoalHostFacts,
} from "./driver-types.js";
import { GoalDriverInvalidError } from "./errors.js";
import { goalStoreOf } from "./goal-capability.js";
import { createGoalDriverController } from "./goal-driver-controller.js";
import type { Goal, GoalPort, GoalStore } from "./types.js";

/** Options of {@link driveGoal}. */
export interface DriveGoalOptions {
  /** The store the Session's `goal()` capability reads: the same object. */
  readonly store: GoalStore;
  /**
   * Opens this Goal first (an explicit host request): the same unfinished objective goes on
   * with the existing Goal, a different one rejects with `goal_conflict`, and a paused or
   * blocked Goal stays so (the call returns that hold). Default: work on the existing Goal.
   */
  readonly objective?: string;
  /** Cooldown and allowance. Defaults: 60,000 ms and 5 check-ins after the first Run. */
  readonly policy?: GoalDriverPolicy;
  /** The host's synchronous facts, read after each decision and right before each admission. */
  observe(): GoalHostFacts;
  /** Receives each Run the driver starts (its events, `join`, `result`); the driver waits for it and for the Run. */
  onRun(run: Run): Promise<void> | void;
  /** Each decision after a Run (`continue` before a cooldown, or the hold it returns). */
  onDecision?(decision: GoalDriveDecision | GoalContinueDecision): Promise<void> | void;
  /** The input of each Run. Default: a short request naming the objective and the check-in. */
  input?(goal: Goal, decision: GoalContinueDecision): RunInput;
  /** Stops the driver and its own Run (not the Session): the call resolves `aborted`. */
  readonly signal?: AbortSignal;
}

/** What `driveGoal` resolves to. */
export interface DriveGoalResult {
  readonly decision: GoalDriveDecision;
  /** Runs this call started. */
  readonly runs: number;
}

/** The prefix of every input id the driver gives a Run: `castellan.goal/<encoded goal id>/<uuid>`. */
export const goalInputIdPrefix = "castellan.goal/";

/** The input id of one continuation of `goal`. */
export function goalInputId(goal: Goal): string {
  return `${goalInputIdPrefix}${encodeURIComponent(goal.id)}/${crypto.randomUUID()}`;
}

function defaultInput(goal: Goal, decision: GoalContinueDecision): string {
  const lines = decision.initial
    ? [`Work toward the Session's Goal ${goal.id}: ${goal.objective}`]
    : [
        `Check-in ${decision.checkin} on the Session's Goal ${goal.id}: ${goal.objective}`,
        "Go on from where you left off.",
      ];
  lines.push("When it is met, or you cannot go on, settle it with update_goal.");
  if (decision.activeCommandSessions.length > 0) {
    const named = decision.activeCommandSessions.map((entry) =>
      entry.command ? `${entry.id} (${entry.command})` : entry.id,
    );
    lines.push(`Command sessions still running (you need not wait for them to finish): ${named.join(", ")}.`);
  }
  return lines.join("\n");
}

function errorInfoOf(error: unknown): ErrorInfo {
  if (error instanceof CastellanError) return { code: error.code, message: error.message };
  return { code: "internal", message: errorMessage(error) };
}

function checkOptions(session: Session, options: DriveGoalOptions): NodeSession {
  if (!(session instanceof NodeSession)) {
    throw new GoalDriverInvalidError(
      "driveGoal drives a Session opened by a Castellan Runner (openSession or runner.openSession).",
    );
  }
  if (options === null || typeof options !== "object")
    throw new GoalDriverInvalidError("driveGoal: options must be an object.");
  for (const name of ["observe", "onRun"] as const) {
    if (typeof options[name] !== "function") throw new GoalDriverInvalidError(`driveGoal: ${name} must be a function.`);
  }
  for (const name of ["onDecision", "input"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new GoalDriverInvalidError(`driveGoal: ${name} must be a function when given.`);
    }
  }
  const store = options.store as GoalStore | undefined;
  if (!store || typeof store.read !== "function" || typeof store.control !== "function") {
    throw new GoalDriverInvalidError("driveGoal: store must be a GoalStore (read, settle, control).");
  }
  if (options.objective !== undefined && (typeof options.objective !== "string" || options.objective.trim() === "")) {
    throw new GoalDriverInvalidError("driveGoal: objective must be a non-empty string when given.");
  }
  if (session.isClosing || session.signal.aborted) {
    throw new GoalDriverInvalidError(`driveGoal: Session "${session.id}" is closed.`);
  }
  if (session.isActive) throw new GoalDriverInvalidError(`driveGoal: Session "${session.id}" has an active Run.`);
  if (session.interruptedRun()?.status === "interrupted") {
    throw new GoalDriverInvalidError(
      `driveGoal: Session "${session.id}" holds a Run a stopped process left unfinished; resume() it or start a Run yourself first.`,
    );
  }
  const declared = session
    .declaredCapabilities()
    .map(goalStoreOf)
    .filter((port): port is GoalPort => port !== undefined);
  if (declared.length === 0) {
    throw new GoalDriverInvalidError(`driveGoal: the agent of Session "${session.id}" does not declare goal().`);
  }
  if (!declared.includes(store)) {
    throw new GoalDriverInvalidError(
      `driveGoal: the agent of Session "${session.id}" declares goal() over another store; pass the same store to both.`,
    );
  }
  return session;
}

/**
 * Works on a Session's Goal across Runs: the first Run starts at once, then up to
 * `policy.maxCheckins` automatic Runs follow, each after `policy.idleMs` of quiet, until a hold
 * hands control back. After each Run the Goal is read from the store, `onDecision` called, and
 * the host's facts read again (and once more right before the next admission). Only the
 * cooldown waits inside; a host resolves any other hold and calls again. Each input carries the
 * id `castellan.goal/<encoded goal id>/<uuid>`. The driver never resumes an interrupted Run,
 * answers approvals, grants permissions or changes the toolset. `signal` stops it and its own
 * Run; the Session's close cancels it. Rejects with `goal_driver_invalid` for a Session it cannot
 * drive and with the cause of any other failure.
 */
export async function driveGoal(session: Session, options: DriveGoalOptions): Promise<DriveGoalResult> {
  const node = checkOptions(session, options);
  const policy = checkPolicy(options.policy, "driveGoal");
  const { store } = options;
  const stops = [session.signal, ...(options.signal ? [options.signal] : [])];
  const stop = stops.length === 1 ? session.signal : AbortSignal.any(stops);
  if (stop.aborted) return { decision: { kind: "aborted" }, runs: 0 };

  const started =
    options.objective === undefined
      ? await store.read(session.id, { signal: stop })
      : await store.control({ sessionId: session.id, action: "open", objective: options.objective }, { signal: stop });

  // The Session's own facts join the host's: a saved approval is a pending interaction, and a
  // Run someone else started is an active one.
  const hostFacts = (): GoalHostFacts & { readonly runActive: boolean } => {
    const facts = options.observe();
    return {
      queuedInput: facts.queuedInput === true,
      interactionPending: facts.interactionPending === true || node.pendingApprovals().length > 0,
      runActive: node.isActive,
      ...(facts.activeCommandSessions ? { activeCommandSessions: facts.activeCommandSessions } : {}),
    };
  };

  let runs = 0;
  let ownRun: Promise<unknown> | undefined;
  return await new Promise<DriveGoalResult>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { decision: GoalDriveDecision } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      stop.removeEventListener("abort", onStop);
      void (async () => {
        await controller.close();
        // The driver's own Run is drained before the call settles.
        if (ownRun) await ownRun.catch(() => undefined);
        if ("error" in outcome) reject(outcome.error);
        else resolve({ decision: outcome.decision, runs });
      })();
    };
    const onStop = () => finish({ decision: { kind: "aborted" } });

    const controller = createGoalDriverController({
      policy,
      observe: async (): Promise<GoalDriverFacts> => {
        const goal = await store.read(session.id, { signal: stop });
        return { ...hostFacts(), goal };
      },
      admit: async (goal, decision, admission) => {
        const input = (options.input ?? defaultInput)(goal, decision);
        const inputId = goalInputId(goal);
        if (stop.aborted || node.isClosing || !admission.accept(hostFacts())) return false;
        const run = session.run(input, { inputId, signal: stop });
        runs += 1;
        ownRun = afterRun(run);
        return true;
      },
      onError: (error) => finish({ error }),
      onDecision: (decision) => finish({ decision }),
    });

    async function afterRun(run: Run): Promise<void> {
      let result: RunResult | undefined;
      let failure: unknown;
      try {
        try {
          await options.onRun(run);
        } finally {
          try {
            result = await run.result;
          } catch (error) {
            failure = error;
          }
        }
      } catch (error) {
        // onRun threw: that is the driver's failure, once its Run has settled.
        return finish({ error });
      }
      if (settled) return;
      if (stop.aborted || node.isClosing) return finish({ decision: { kind: "aborted" } });
      if (!result) {
        const status = failure instanceof CastellanError && failure.code === "run_aborted" ? "aborted" : "failed";
        return finish({ decision: { kind: "run-stopped", runId: run.id, status, error: errorInfoOf(failure) } });
      }
      try {
        const goal = await store.read(session.id, { signal: stop });
        if (settled) return;
        const snapshot = controller.snapshot();
        const facts: GoalDriverFacts = { ...hostFacts(), goal };
        const context = { goalId: started?.id, initial: false, remaining: snapshot.remaining };
        const hold = holdFor(facts, context);
        const decision: GoalDriveDecision | GoalContinueDecision =
          hold ??
          Object.freeze({
            kind: "continue",
            goal: goal as Goal,
            initial: false,
            checkin: snapshot.admitted + 1,
            remaining: snapshot.remaining - 1,
            activeCommandSessions: Object.freeze([...(facts.activeCommandSessions ?? [])]),
          });
        await options.onDecision?.(decision);
        if (settled) return;
        if (hold) return finish({ decision: hold });
        // The host's facts again, after onDecision had its say.
        const after = holdFor({ ...hostFacts(), goal }, context);
        if (after) return finish({ decision: after });
        controller.idle();
      } catch (error) {
        if (stop.aborted) return finish({ decision: { kind: "aborted" } });
        finish({ error });
      }
    }

    stop.addEventListener("abort", onStop, { once: true });
    if (started === null) return finish({ decision: { kind: "deleted" } });
    controller.arm({ initialRun: true, goalId: started.id });
  });
}
