import type { RunEvent } from "@castellan/harness";
import type { SessionRecord } from "../store/records.js";
import { Outbox } from "./outbox.js";
import type { Emit, SessionJournal } from "./session-journal.js";

/**
 * One Run's side of the Session's write path, and the only place that orders the Run's events
 * after durability: an event that reports a record is emitted once that record is durable, and
 * every event emitted after it waits behind it.
 *
 * - `stage` keeps records that need not be durable on their own (the turn's answer, a batch's
 *   start) to ride with the next commit, and holds their events, and every later event, until
 *   that commit is durable. A turn saves fewer syncs this way.
 * - `commit` saves what is staged and the given records, and resolves once they are durable
 *   and folded; their events follow.
 * - `commitAhead` saves them while the Run goes on: it resolves once they are folded, and
 *   their events (and all later ones) wait in the outbox until the append is durable. If it
 *   fails, those events are dropped and the Run fails at its next commit.
 */
export class RunJournal {
  private staged: SessionRecord[] = [];
  private stagedEvents: RunEvent[] = [];
  private readonly outbox: Outbox;

  constructor(
    private readonly journal: SessionJournal,
    emit: Emit,
  ) {
    this.outbox = new Outbox(emit);
  }

  /** Reports an event now, or after the records it follows are saved. */
  readonly emit: Emit = (event) => {
    if (this.stagedEvents.length > 0) this.stagedEvents.push(event);
    else this.outbox.emit(event);
  };

  /** Keeps records for the next commit; `events` report them once that commit is durable. */
  stage(records: readonly SessionRecord[], events: readonly RunEvent[] = []): void {
    this.staged.push(...records);
    this.stagedEvents.push(...events);
  }

  /** Saves the staged records and `records`; resolves once durable, then reports their events and `events`. */
  async commit(records: readonly SessionRecord[], events: readonly RunEvent[] = []): Promise<void> {
    const batch = this.takeStaged(records);
    await this.journal.commit(batch);
    const waiting = this.stagedEvents;
    this.stagedEvents = [];
    for (const event of [...waiting, ...events]) this.outbox.emit(event);
  }

  /** Saves the staged records and `records` ahead: resolves once folded; their events wait until durable. */
  async commitAhead(records: readonly SessionRecord[], events: readonly RunEvent[] = []): Promise<void> {
    const batch = this.takeStaged(records);
    const { durable } = await this.journal.commitAhead(batch);
    const waiting = this.stagedEvents;
    this.stagedEvents = [];
    this.outbox.holdUntil(durable, [...waiting, ...events]);
  }

  /** Drops what is staged, and its events: the Run failed before committing it. */
  discardStaged(): void {
    this.staged = [];
    this.stagedEvents = [];
  }

  /** Waits until every event emitted so far has left the outbox (never rejects); the Run goes on as before. */
  released(): Promise<void> {
    return this.outbox.released();
  }

  /** Waits until no event is held (never rejects); from then on events are reported directly again. */
  settle(): Promise<void> {
    return this.outbox.settle();
  }

  private takeStaged(records: readonly SessionRecord[]): readonly SessionRecord[] {
    const batch = this.staged.length > 0 ? [...this.staged, ...records] : records;
    this.staged = [];
    return batch;
  }
}
