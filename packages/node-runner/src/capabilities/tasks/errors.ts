import { CastellanError } from "@castellan/harness";

/** Another writer (this process or another) holds the Session's task list. */
export class TaskStoreLockedError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("task_store_locked", message, options);
  }
}

/** A save named a revision the list is no longer at (someone saved in between). */
export class TaskStoreConflictError extends CastellanError {
  constructor(sessionId: string, expected: number, actual: number) {
    super(
      "task_store_conflict",
      `The task list of Session "${sessionId}" is at revision ${actual}, not ${expected}; load it again.`,
    );
  }
}

/** A task file that does not parse, or has an unknown format version; it is left unchanged. */
export class TaskStoreCorruptError extends CastellanError {
  readonly file: string;

  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super("task_store_corrupt", `The task file ${file} ${message}; it was left unchanged.`, options);
    this.file = file;
  }
}
