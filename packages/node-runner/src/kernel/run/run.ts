import type { ContentBlock, RunEvent, RunResult } from "@castellan/harness";
import { EventChannel } from "./event-channel.js";
import { JoinQueue } from "./join-queue.js";

/**
 * One Run of a Session: an async iterable of its events, in order, and its `result`. The
 * result rejects with a typed error when the Run is aborted or fails; iterating still yields
 * every event up to and including `run-end`.
 */
export interface Run extends AsyncIterable<RunEvent> {
  readonly id: string;
  readonly result: Promise<RunResult>;
  /**
   * Adds input to the running Run: it is saved and shown to the model at the next turn
   * boundary (after the current tool batch, or instead of ending). Resolves once saved;
   * rejects with `run_ended` when the Run ends first. Joining does not abort a batch.
   */
  join(input: string | readonly ContentBlock[], options?: JoinOptions): Promise<void>;
}

/** Options of `run.join`. */
export interface JoinOptions {
  /**
   * The host's identity for this input: an opaque string of 1-256 characters, saved with it and
   * shown on its `run-input` event. An id already in the Session's history (or queued) is
   * refused with `input_duplicate` before anything is saved. Default: none.
   */
  readonly inputId?: string;
}

/** The Runner's side of a Run: where the loop reports. */
export class RunHandle implements Run {
  readonly id: string;
  readonly result: Promise<RunResult>;
  readonly joined = new JoinQueue();
  private readonly channel = new EventChannel<RunEvent>();

  constructor(
    id: string,
    execution: (
      emit: (event: RunEvent) => void,
      joined: JoinQueue,
      delivered: () => Promise<void>,
    ) => Promise<RunResult>,
    private readonly normalize: (input: string | readonly ContentBlock[]) => readonly ContentBlock[],
    private readonly checkInputId: (inputId: unknown, queued: JoinQueue) => void = () => undefined,
  ) {
    this.id = id;
    this.result = execution(
      (event) => this.channel.push(event),
      this.joined,
      () => this.channel.delivered(),
    ).finally(() => this.channel.end());
    // A consumer may only iterate; the rejection is still delivered to whoever awaits `result`.
    this.result.catch(() => undefined);
  }

  join(input: string | readonly ContentBlock[], options: JoinOptions = {}): Promise<void> {
    let content: readonly ContentBlock[];
    try {
      content = this.normalize(input);
      if (options.inputId !== undefined) this.checkInputId(options.inputId, this.joined);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.joined.push(content, options.inputId);
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.channel[Symbol.asyncIterator]();
  }
}
