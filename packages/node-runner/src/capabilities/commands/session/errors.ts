import { CastellanError } from "@castellan/harness";

/**
 * A Session closed after at least one of its command observers (`onTerminalUpdate`,
 * `onSessionCommandsChanged`) threw or rejected. Thrown once everything else of the Session's
 * commands was released; `failures` holds every cause, in the order they were seen.
 */
export class CommandObserverError extends CastellanError {
  /** The Session whose observers failed. */
  readonly sessionId: string;
  /** What each failing observer threw or rejected with. */
  readonly failures: readonly unknown[];

  constructor(sessionId: string, failures: readonly unknown[]) {
    super(
      "command_observer_failed",
      `${failures.length} command observer call${failures.length === 1 ? "" : "s"} failed for Session ${JSON.stringify(sessionId)}; its commands were still ended and released.`,
      { cause: failures.length === 1 ? failures[0] : new AggregateError(failures) },
    );
    this.sessionId = sessionId;
    this.failures = Object.freeze([...failures]);
  }
}
