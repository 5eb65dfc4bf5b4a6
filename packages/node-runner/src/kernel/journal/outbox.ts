import type { RunEvent } from "@castellan/harness";
import type { Emit } from "./session-journal.js";

/**
 * A Run's events on their way out, in order. Records saved ahead (their append still
 * syncing while the Run goes on) are reported only once durable: their events, and every
 * event after them, wait. If that append fails, the waiting events are dropped and so is
 * everything the Run reports until `settle`, since it reports work built on unsaved records;
 * the failure reaches the Run through its next save.
 */
export class Outbox {
  private queued: RunEvent[] = [];
  private gate: Promise<void> | undefined;
  private failed = false;

  constructor(private readonly emitNow: Emit) {}

  readonly emit: Emit = (event) => {
    if (this.failed) return;
    if (this.gate) this.queued.push(event);
    else this.emitNow(event);
  };

  /** Reports `events`, and holds every later event, until `durable` resolves. */
  holdUntil(durable: Promise<void>, events: readonly RunEvent[]): void {
    if (this.failed) return;
    this.queued.push(...events);
    const gate: Promise<void> = (this.gate ?? Promise.resolve()).then(() => durable);
    this.gate = gate;
    gate.then(
      () => {
        // A later hold extends the wait; its own settlement releases everything.
        if (this.gate !== gate) return;
        this.gate = undefined;
        const events = this.queued;
        this.queued = [];
        for (const event of events) this.emitNow(event);
      },
      () => {
        if (this.gate !== gate) return;
        this.gate = undefined;
        this.queued = [];
        this.failed = true;
      },
    );
  }

  /** Waits until nothing is held (never rejects): every event emitted so far has been reported or dropped. */
  async released(): Promise<void> {
    while (this.gate) await this.gate.catch(() => undefined);
  }

  /**
   * Waits until nothing is held (never rejects), then reports directly again, also after a
   * failure: how the Run ended is still reported.
   */
  async settle(): Promise<void> {
    // The gate's own handler, attached first, has released or dropped what waited by the time this wakes.
    while (this.gate) await this.gate.catch(() => undefined);
    this.failed = false;
  }
}
