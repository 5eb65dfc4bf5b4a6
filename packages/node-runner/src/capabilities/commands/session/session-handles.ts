import type { CommandSessionLifetime } from "./ports.js";

/** What the plugin keeps of a command it launched, from spawn until its Session closes. */
export interface CommandHandle {
  readonly commandId: string;
  readonly sessionId: string;
  readonly runId: string;
  readonly toolCallId: string;
  readonly command: string;
  readonly lifetime: CommandSessionLifetime;
  /** Settles once the end was published to the host's observers (never rejects). */
  readonly published: Promise<void>;
}

/** A session-lifetime command's tie to the Run that launched it: aborting that Run kills it, while the Run is current. */
interface RunLink {
  readonly runId: string;
  readonly detach: () => void;
}

interface SessionEntry {
  readonly handles: Map<string, CommandHandle>;
  /** Handles known only from the host's receipts (`readTerminal`): pollable, never live. */
  readonly receipts: Set<string>;
  readonly links: Set<RunLink>;
  /** Observer failures the supervisor does not see (`onSessionCommandsChanged` at a start). */
  readonly failures: unknown[];
}

/**
 * The handles of each Session, in memory. A handle is known only to the Session that
 * launched it, so a handle from another Session is unknown here. Kept until the Session
 * closes, so a handle whose supervisor record was released can still be read from a receipt.
 */
export class SessionHandles {
  readonly #sessions = new Map<string, SessionEntry>();

  add(handle: CommandHandle): void {
    this.#entry(handle.sessionId).handles.set(handle.commandId, handle);
  }

  get(sessionId: string, commandId: string): CommandHandle | undefined {
    return this.#sessions.get(sessionId)?.handles.get(commandId);
  }

  /** True for a handle this Session launched, or one its host's store answered for. */
  knows(sessionId: string, commandId: string): boolean {
    const entry = this.#sessions.get(sessionId);
    return entry !== undefined && (entry.handles.has(commandId) || entry.receipts.has(commandId));
  }

  /** Remembers that the host's store holds a receipt of this Session's `commandId`. */
  addReceipt(sessionId: string, commandId: string): void {
    this.#entry(sessionId).receipts.add(commandId);
  }

  /**
   * Ties `controller` to `runSignal` of Run `runId`: its abort aborts the controller until the
   * returned detach runs, or a later Run of the Session is seen ({@link runSeen}).
   */
  link(sessionId: string, runId: string, runSignal: AbortSignal, controller: AbortController): () => void {
    const entry = this.#entry(sessionId);
    const onAbort = () => controller.abort(runSignal.reason);
    const link: RunLink = {
      runId,
      detach: () => {
        runSignal.removeEventListener("abort", onAbort);
        entry.links.delete(link);
      },
    };
    runSignal.addEventListener("abort", onAbort, { once: true });
    entry.links.add(link);
    return link.detach;
  }

  /** A turn of Run `runId` started: links to earlier Runs are dropped, as those Runs have ended. */
  runSeen(sessionId: string, runId: string): void {
    for (const link of [...(this.#sessions.get(sessionId)?.links ?? [])]) {
      if (link.runId !== runId) link.detach();
    }
  }

  /** Keeps an observer failure for the Session's close. */
  fail(sessionId: string, error: unknown): void {
    this.#entry(sessionId).failures.push(error);
  }

  /** Detaches the Session's Run links and forgets it; returns its kept failures. */
  forget(sessionId: string): readonly unknown[] {
    const entry = this.#sessions.get(sessionId);
    if (!entry) return [];
    for (const link of [...entry.links]) link.detach();
    this.#sessions.delete(sessionId);
    return entry.failures;
  }

  /** Every Session with an entry. */
  sessions(): readonly string[] {
    return [...this.#sessions.keys()];
  }

  #entry(sessionId: string): SessionEntry {
    let entry = this.#sessions.get(sessionId);
    if (!entry) {
      entry = { handles: new Map(), receipts: new Set(), links: new Set(), failures: [] };
      this.#sessions.set(sessionId, entry);
    }
    return entry;
  }
}
