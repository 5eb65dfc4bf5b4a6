/** A task's state. */
export type TaskStatus = "pending" | "in_progress" | "completed";

/** One task of a Session's list. */
export interface Task {
  /** `task-<n>`, in creation order. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly status: TaskStatus;
  /** 0 for pending, 100 for completed, 0-100 in progress. */
  readonly progress: number;
  /** Ids of tasks this one waits for. */
  readonly dependsOn: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A Session's list as saved, with the revision a save must name. */
export interface TaskList {
  /** 0 for a list never saved; each save adds one. */
  readonly revision: number;
  readonly tasks: readonly Task[];
}

/** Where a Session's task list lives; an application may give its own. */
export interface TaskPort {
  /** The Session's list; an unknown Session has `{ revision: 0, tasks: [] }`. */
  load(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<TaskList>;
  /**
   * Replaces the Session's list, if it is still at `expectedRevision` (else `task_store_conflict`);
   * resolves with the saved list.
   */
  save(
    sessionId: string,
    tasks: readonly Task[],
    options: { readonly expectedRevision: number; readonly signal?: AbortSignal },
  ): Promise<TaskList>;
}

/** A task store that holds per-Session writer locks until it is closed. */
export interface TaskStore extends TaskPort {
  /** The directory it keeps its files in. */
  readonly directory: string;
  /** Releases every Session lock this store holds; idempotent. */
  close(): Promise<void>;
}
