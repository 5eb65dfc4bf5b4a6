import type { ErrorInfo } from "@castellan/harness";
import type { Goal } from "./types.js";

/** A command session the host knows is still running, named in a check-in so the agent need not wait for it. */
export interface ActiveCommandSession {
  readonly id: string;
  /** What it runs, as the host shows it. */
  readonly command?: string;
}

/** What the host knows synchronously about its own queue and interactions. */
export interface GoalHostFacts {
  /** The user has input waiting: a continuation must not jump ahead of it. */
  readonly queuedInput: boolean;
  /** A question (an approval, a prompt) awaits the user. */
  readonly interactionPending: boolean;
  /** Command sessions still running, passed to the next check-in. Default none. */
  readonly activeCommandSessions?: readonly ActiveCommandSession[];
}

/** Everything a controller decides on: the Goal as it is now and the host's facts. */
export interface GoalDriverFacts extends GoalHostFacts {
  /** The Goal read fresh from its store, or null. */
  readonly goal: Goal | null;
  /** Some Run (not necessarily one the driver started) is active in the Session. */
  readonly runActive: boolean;
}

/**
 * Why a driver stopped and handed control back to its host. The holds (`queued-input`,
 * `interaction-pending`, `run-active`, `paused`, `blocked`, `deleted`, `complete`, `replaced`)
 * need the host to act and call again; `allowance-exhausted` leaves the Goal active;
 * `run-stopped` is a Run that failed or was aborted by someone else; `aborted` is the driver's
 * own signal or the Session's close.
 */
export type GoalDriveDecision =
  | { readonly kind: "queued-input" }
  | { readonly kind: "interaction-pending" }
  | { readonly kind: "run-active" }
  | { readonly kind: "paused"; readonly goal: Goal }
  | { readonly kind: "blocked"; readonly goal: Goal }
  | { readonly kind: "deleted" }
  | { readonly kind: "complete"; readonly goal: Goal }
  /** The store holds a Goal of another identity than the one this call worked on. */
  | { readonly kind: "replaced"; readonly goal: Goal }
  | { readonly kind: "allowance-exhausted"; readonly goal: Goal }
  | {
      readonly kind: "run-stopped";
      readonly runId: string;
      readonly status: "failed" | "aborted";
      readonly error: ErrorInfo;
    }
  | { readonly kind: "aborted" };

/** A decision to admit one more Run for an active Goal. */
export interface GoalContinueDecision {
  readonly kind: "continue";
  readonly goal: Goal;
  /** True for the explicit first Run of `arm({ initialRun: true })`, which the allowance does not count. */
  readonly initial: boolean;
  /** 0 for the initial Run, then 1, 2, ... for each automatic check-in of the generation. */
  readonly checkin: number;
  /** Check-ins left after this one. */
  readonly remaining: number;
  readonly activeCommandSessions: readonly ActiveCommandSession[];
}

/** Cooldown and allowance of automatic check-ins. */
export interface GoalDriverPolicy {
  /** Quiet time before each automatic check-in, in ms. Default 60,000; 0 to 2,147,483,647. */
  readonly idleMs?: number;
  /** Automatic Runs after the first. Default 5; 0 to 1,000. */
  readonly maxCheckins?: number;
}

/** Bounds and defaults of {@link GoalDriverPolicy}. */
export const goalDriverDefaults = Object.freeze({
  idleMs: 60_000,
  maxCheckins: 5,
  maxIdleMs: 2_147_483_647,
  maxMaxCheckins: 1_000,
});
