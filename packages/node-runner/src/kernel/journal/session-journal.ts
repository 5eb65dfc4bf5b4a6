import type { RunEvent } from "@castellan/harness";
import type { SessionHistory } from "../history/session-history.js";
import type { SessionOpenRecord, SessionRecord } from "../store/records.js";
import type { SessionLog } from "../store/types.js";
import { RunJournal } from "./run-journal.js";

/** Reports a Run's events. */
export type Emit = (event: RunEvent) => void;

/**
 * The write path of one Session: the only code that appends to its log. Appends are made one
 * after another in call order (a host write and a Run's records never interleave), and a
 * record is folded into the history exactly when the log holds it, so what the Session knows
 * is always the fold of its log.
 *
 * Two ways to save: `append` resolves once the records are durable and folded; `appendAhead`
 * folds them at once and resolves with `durable`, so the Run may go on (its next model call)
 * while they sync. After a failed append ahead the history holds records the log does not,
 * so every later append fails with that failure.
 *
 * Run code does not call these directly: it commits through its Run's {@link RunJournal},
 * which also orders the Run's events after the records they report.
 */
export class SessionJournal {
  /** The chain every append takes its place in. Never rejects. */
  private queue: Promise<void> = Promise.resolve();
  /** When the latest append made ahead is durable (never rejects; its failure is `broken`). */
  private ahead: Promise<void> = Promise.resolve();
  private broken: unknown;

  /**
   * @param log the store's log; undefined for a Session kept in memory only.
   * @param pendingOpening a new Session's `session-open`, saved with its first append.
   */
  constructor(
    private readonly log: SessionLog | undefined,
    private readonly history: SessionHistory,
    private pendingOpening: SessionOpenRecord | undefined,
  ) {}

  /** Saves records (a host write); resolves once durable and folded. */
  commit(records: readonly SessionRecord[]): Promise<void> {
    const next = this.queue.then(() => this.write(records));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Saves records without waiting for their sync: resolves, in order with `commit`, once they
   * are folded, with `durable`, which settles when they are saved.
   */
  commitAhead(records: readonly SessionRecord[]): Promise<{ readonly durable: Promise<void> }> {
    const next = this.queue.then(() => this.writeAhead(records));
    this.queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** Saves the `session-open` of a new Session now (one with params is saved when it opens). */
  saveOpening(): Promise<void> {
    return this.pendingOpening ? this.commit([]) : Promise.resolve();
  }

  /** The event side of one Run: its events wait for the records they report. */
  run(emit: Emit): RunJournal {
    return new RunJournal(this, emit);
  }

  /** Resolves once every append started so far has settled (never rejects). */
  idle(): Promise<void> {
    return this.queue;
  }

  private take(records: readonly SessionRecord[]): readonly SessionRecord[] {
    const batch = this.pendingOpening ? [this.pendingOpening, ...records] : records;
    this.pendingOpening = undefined;
    return batch;
  }

  private async write(records: readonly SessionRecord[]): Promise<void> {
    if (this.broken !== undefined) throw this.broken;
    const opening = this.pendingOpening;
    const batch = this.take(records);
    try {
      // Stores keep appends in order: once this one is durable, records saved ahead are too
      // (or failed, failing this one), and this append shares their sync.
      if (this.log && batch.length > 0) await this.log.append(batch);
      await this.ahead;
    } catch (error) {
      this.pendingOpening = opening;
      throw error;
    }
    if (this.broken !== undefined) throw this.broken;
    for (const record of batch) this.history.apply(record);
  }

  private writeAhead(records: readonly SessionRecord[]): { readonly durable: Promise<void> } {
    if (this.broken !== undefined) throw this.broken;
    const batch = this.take(records);
    // Nothing waits on these records: they may wait briefly to share the next append's sync.
    const durable = this.log && batch.length > 0 ? this.log.append(batch, { shareSync: true }) : Promise.resolve();
    this.ahead = durable.catch((error: unknown) => {
      this.broken ??= error;
    });
    for (const record of batch) this.history.apply(record);
    return { durable };
  }
}
