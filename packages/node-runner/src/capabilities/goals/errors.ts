import { CastellanError } from "@castellan/harness";
import type { Goal } from "./types.js";

/** A settlement named a Goal that is no longer the active one of that id and objective. */
export class GoalSettlementObsoleteError extends CastellanError {
  /** The Goal as it is now (null when deleted). */
  readonly current: Goal | null;

  constructor(current: Goal | null, reason: string) {
    super("goal_settlement_obsolete", `The settlement is obsolete: ${reason}.`);
    this.current = current;
  }
}

/** `open` with an objective other than the Session's unfinished Goal's. */
export class GoalConflictError extends CastellanError {
  readonly current: Goal;

  constructor(current: Goal) {
    super(
      "goal_conflict",
      `Session "${current.sessionId}" already has the unfinished Goal ${JSON.stringify(current.objective)} (${current.status}); settle, edit or delete it first.`,
    );
    this.current = current;
  }
}

/** Another writer holds the Session's Goal file. */
export class GoalStoreLockedError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("goal_store_locked", message, options);
  }
}

/** A Goal file that does not parse or has an unknown format version; it is left unchanged. */
export class GoalStoreCorruptError extends CastellanError {
  readonly file: string;

  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super("goal_store_corrupt", `The Goal file ${file} ${message}; it was left unchanged.`, options);
    this.file = file;
  }
}

/** A control or settlement that is malformed (no objective, a summary out of bounds). */
export class GoalInvalidError extends CastellanError {
  constructor(message: string) {
    super("goal_invalid", message);
  }
}

/** `driveGoal` was called on a Session it cannot drive (closed, busy, interrupted, without `goal` over the same store). */
export class GoalDriverInvalidError extends CastellanError {
  constructor(message: string) {
    super("goal_driver_invalid", message);
  }
}
