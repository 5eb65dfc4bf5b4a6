import type { CaptureFiles } from "./capture-file.js";
import type { ResolvedBrowserOptions } from "./resolve-options.js";
import { closedError, SessionBrowser } from "./session-browser.js";

/**
 * What the ten tools share: the checked options and one {@link SessionBrowser} per Session id,
 * created on the first call of that Session and forgotten when it closes.
 */
export class BrowserOwner {
  private readonly sessions = new Map<string, SessionBrowser>();
  private readonly closingSessions = new Map<string, Promise<void>>();
  private readonly operations = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;

  constructor(
    readonly options: ResolvedBrowserOptions,
    readonly files: CaptureFiles,
  ) {}

  /** The factory's mode; default `managed`. */
  get mode(): "managed" | "selected" {
    return this.options.sessionFactory.mode ?? "managed";
  }

  /** `browser_closed` once close started. */
  checkOpen(): void {
    if (this.closing) throw closedError();
  }

  /** The Session's state, created empty (no browser) on first use. */
  session(sessionId: string): SessionBrowser {
    this.checkOpen();
    let state = this.sessions.get(sessionId);
    if (!state) {
      const declared = this.options.origins.origins;
      state = new SessionBrowser(
        sessionId,
        this.options.maxObservationBytes,
        (origin) => declared === undefined || declared.includes(origin),
      );
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  /** Runs one admitted operation of `state`: both close() and closeSession() wait for it. */
  async run<T>(state: SessionBrowser, operation: () => Promise<T>): Promise<T> {
    this.checkOpen();
    const running = state.track(operation);
    this.operations.add(running);
    try {
      return await running;
    } finally {
      this.operations.delete(running);
    }
  }

  /** Ends the Session's browser and forgets its state; resolves when its operations settled. Idempotent. */
  closeSession(sessionId: string): Promise<void> {
    const pending = this.closingSessions.get(sessionId);
    if (pending) return pending;
    const state = this.sessions.get(sessionId);
    if (!state) return Promise.resolve();
    this.sessions.delete(sessionId);
    const closing = state.close().finally(() => this.closingSessions.delete(sessionId));
    this.closingSessions.set(sessionId, closing);
    return closing;
  }

  /** Refuses later calls, closes every Session's browser and waits for every operation. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    const states = [...this.sessions.values()];
    this.sessions.clear();
    const results = await Promise.allSettled([
      ...states.map((state) => state.close()),
      ...this.closingSessions.values(),
    ]);
    await Promise.allSettled([...this.operations]);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason;
  }
}
