import type { RunEvent } from "@castellan/harness";
import type { Emit, SessionCore } from "../session/session-core.js";
import type { SessionRecord } from "../store/records.js";

/**
 * Appends a batch's records, letting records that need not be durable on their own (the
 * turn's answer, the batch's start) ride with the next append, so a turn costs fewer syncs.
 * Events that report held records, and any event reported after them, wait for that append.
 */
export class BatchLog {
  private held: SessionRecord[] = [];
  private waiting: RunEvent[] = [];

  constructor(
    private readonly core: SessionCore,
    private readonly emitNow: Emit,
  ) {}

  hold(records: readonly SessionRecord[], events: readonly RunEvent[] = []): void {
    this.held.push(...records);
    this.waiting.push(...events);
  }

  /** Reports an event now, or after the held records it follows are saved. */
  emit(event: RunEvent): void {
    if (this.waiting.length > 0) this.waiting.push(event);
    else this.emitNow(event);
  }

  /**
   * Saves records ahead: resolves once they are in the history, while their append may still
   * be syncing; their events (the held ones, then `events`) are reported once it is durable.
   */
  async writeAhead(records: readonly SessionRecord[], events: readonly RunEvent[], outbox: Hold): Promise<void> {
    const all = [...this.held, ...records];
    this.held = [];
    const { durable } = await this.core.persistAhead(all);
    const waiting = [...this.waiting, ...events];
    this.waiting = [];
    outbox.holdUntil(durable, waiting);
  }

  async write(records: readonly SessionRecord[]): Promise<void> {
    const all = [...this.held, ...records];
    this.held = [];
    await this.core.persist(all);
    const events = this.waiting;
    this.waiting = [];
    for (const event of events) this.emitNow(event);
  }
}

/** Where events wait for an append saved ahead (the Run's outbox). */
export interface Hold {
  holdUntil(durable: Promise<void>, events: readonly RunEvent[]): void;
}

/** The `tool-end` events that report the receipts. */
export function receiptEvents(receipts: readonly SessionRecord[]): RunEvent[] {
  const events: RunEvent[] = [];
  for (const record of receipts) {
    if (record.kind !== "tool-end") continue;
    const { runId, turn, toolCallId, toolName, result } = record;
    events.push({ kind: "tool-end", runId, turn, toolCallId, toolName, result });
  }
  return events;
}

/** Reports the receipts' `tool-end` events, once they are saved. */
export function emitReceipts(receipts: readonly SessionRecord[], emit: Emit): void {
  for (const event of receiptEvents(receipts)) emit(event);
}
