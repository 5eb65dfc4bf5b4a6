/** Where a Goal stands. */
export type GoalStatus = "active" | "paused" | "blocked" | "complete";

/** A durable objective of one Session. */
export interface Goal {
  readonly id: string;
  readonly sessionId: string;
  readonly objective: string;
  readonly status: GoalStatus;
  /** 1 when opened; each change adds one. */
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The agent's summary when it settled the Goal. */
  readonly summary?: string;
}

/** What an agent settles a Goal with (`update_goal`). */
export interface GoalSettlement {
  readonly sessionId: string;
  /** The exact current Goal's id and objective: a settlement of anything else is obsolete. */
  readonly goalId: string;
  readonly objective: string;
  readonly status: "complete" | "blocked";
  /** 1-4,096 characters. */
  readonly summary: string;
}

/** Where a product keeps Goals: read, and settle by the agent. */
export interface GoalPort {
  /** The Session's Goal, read fresh, or null. */
  read(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<Goal | null>;
  /**
   * Settles the current Goal; refuses (`goal_settlement_obsolete`, with the current Goal) one
   * that is not the active Goal of that id and objective.
   */
  settle(settlement: GoalSettlement, options?: { readonly signal?: AbortSignal }): Promise<Goal>;
}

/** What a host does to a Session's Goal. */
export type GoalControl =
  | { readonly sessionId: string; readonly action: "open"; readonly objective: string }
  | { readonly sessionId: string; readonly action: "edit"; readonly objective: string }
  | { readonly sessionId: string; readonly action: "pause" | "resume" | "delete" };

/** A Goal store a host controls. */
export interface GoalStore extends GoalPort {
  /**
   * `open` (the same unfinished objective returns the existing Goal; a different one is
   * `goal_conflict`), `edit` (same id, revision + 1), `pause`, `resume` (a paused or blocked Goal
   * becomes active), `delete`. Resolves with the Goal after the action (null after `delete`).
   */
  control(control: GoalControl, options?: { readonly signal?: AbortSignal }): Promise<Goal | null>;
  readonly directory: string;
  /** Releases every Session lock this store holds; idempotent. */
  close(): Promise<void>;
}
