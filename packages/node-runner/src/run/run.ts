import type { RunEvent, RunResult } from "@castellan/harness";
import { EventChannel } from "./event-channel.js";

/**
 * One Run of a Session: an async iterable of its events, in order, and its `result`. The
 * result rejects with a typed error when the Run is aborted or fails; iterating still yields
 * every event up to and including `run-end`.
 */
export interface Run extends AsyncIterable<RunEvent> {
  readonly id: string;
  readonly result: Promise<RunResult>;
}

/** The Runner's side of a Run: where the loop reports. */
export class RunHandle implements Run {
  readonly id: string;
  readonly result: Promise<RunResult>;
  private readonly channel = new EventChannel<RunEvent>();

  constructor(id: string, execution: (emit: (event: RunEvent) => void) => Promise<RunResult>) {
    this.id = id;
    this.result = execution((event) => this.channel.push(event)).finally(() => this.channel.end());
    // A consumer may only iterate; the rejection is still delivered to whoever awaits `result`.
    this.result.catch(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.channel[Symbol.asyncIterator]();
  }
}
