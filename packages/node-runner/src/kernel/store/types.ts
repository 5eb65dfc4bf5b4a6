import type { SessionRecord } from "./records.js";

/** How one append is made durable. */
export interface AppendOptions {
  /**
   * The append may wait a few milliseconds for a later append to share its sync (the Runner
   * asks this for records nothing waits on, such as a batch's settlement before the next
   * turn's intent). It is written at once all the same. A store may ignore it.
   */
  readonly shareSync?: boolean;
}

/**
 * One Session's history, opened for writing. While it is open no other writer (in this or
 * another process) can open the same Session.
 */
export interface SessionLog {
  readonly sessionId: string;
  /** The valid history found at open, oldest first. A torn trailing record is not in it. */
  readonly records: readonly SessionRecord[];
  /**
   * Appends records in order. Resolves only once they are durable (written and synced); a
   * torn tail found at open is cut before the first append. Rejects on failure, after which
   * the log refuses further appends. A caller may start the next append before this one
   * resolves (the Runner does, to overlap a sync with its next model call): appends are kept
   * in call order and resolve in that order, and one that follows a failed one fails too.
   */
  append(records: readonly SessionRecord[], options?: AppendOptions): Promise<void>;
  /** Releases the writer lock. Idempotent. */
  close(): Promise<void>;
}

/** Where Sessions are saved. */
export interface SessionStore {
  /**
   * Opens a Session's log for writing: takes its writer lock, then reads and checks its
   * history. A Session never saved opens with no records. Fails, changing nothing on disk,
   * when another writer holds it or its history is invalid.
   */
  open(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<SessionLog>;
}
