import {
  type GoalDriveDecision,
  type GoalDriverFacts,
  type GoalDriverPolicy,
  goalDriverDefaults,
} from "./driver-types.js";
import { GoalDriverInvalidError } from "./errors.js";

/** What a check knows besides the facts: the Goal identity being worked on and the allowance. */
export interface CheckContext {
  /** The id of the Goal this generation works on; undefined until first seen. */
  readonly goalId: string | undefined;
  /** The explicit first Run, which the allowance does not count. */
  readonly initial: boolean;
  /** Check-ins left. */
  readonly remaining: number;
}

/**
 * The hold that stops a continuation, or undefined when one may be admitted. The Goal's own
 * state comes first, then the host's facts, then the allowance: a user's queued input is worth
 * telling the host about even when the allowance is spent.
 */
export function holdFor(facts: GoalDriverFacts, context: CheckContext): GoalDriveDecision | undefined {
  const goal = facts.goal;
  if (goal === null) return { kind: "deleted" };
  if (context.goalId !== undefined && goal.id !== context.goalId) return { kind: "replaced", goal };
  if (goal.status === "paused") return { kind: "paused", goal };
  if (goal.status === "blocked") return { kind: "blocked", goal };
  if (goal.status === "complete") return { kind: "complete", goal };
  if (facts.queuedInput) return { kind: "queued-input" };
  if (facts.interactionPending) return { kind: "interaction-pending" };
  if (facts.runActive) return { kind: "run-active" };
  if (!context.initial && context.remaining <= 0) return { kind: "allowance-exhausted", goal };
  return undefined;
}

/** True for the holds after which a generation cannot go on by itself (everything but a host fact). */
export function endsGeneration(decision: GoalDriveDecision): boolean {
  return decision.kind !== "queued-input" && decision.kind !== "interaction-pending" && decision.kind !== "run-active";
}

/** The policy with its defaults, or `goal_driver_invalid` naming the bad field. */
export function checkPolicy(policy: GoalDriverPolicy | undefined, where: string): Required<GoalDriverPolicy> {
  if (policy !== undefined && (policy === null || typeof policy !== "object")) {
    throw new GoalDriverInvalidError(`${where}: policy must be an object of { idleMs?, maxCheckins? }.`);
  }
  const idleMs = policy?.idleMs ?? goalDriverDefaults.idleMs;
  const maxCheckins = policy?.maxCheckins ?? goalDriverDefaults.maxCheckins;
  if (!Number.isInteger(idleMs) || idleMs < 0 || idleMs > goalDriverDefaults.maxIdleMs) {
    throw new GoalDriverInvalidError(
      `${where}: policy.idleMs must be an integer from 0 to ${goalDriverDefaults.maxIdleMs}, not ${String(idleMs)}.`,
    );
  }
  if (!Number.isInteger(maxCheckins) || maxCheckins < 0 || maxCheckins > goalDriverDefaults.maxMaxCheckins) {
    throw new GoalDriverInvalidError(
      `${where}: policy.maxCheckins must be an integer from 0 to ${goalDriverDefaults.maxMaxCheckins}, not ${String(maxCheckins)}.`,
    );
  }
  return { idleMs, maxCheckins };
}
