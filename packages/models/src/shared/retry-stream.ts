// The retry loop every streaming adapter runs: a failed attempt is tried again only while none
// of its events has reached the caller, because the caller already holds part of an answer
// that has started.
import type { ModelStreamEvent } from "@castellan/harness";
import { abortError } from "./abort.js";
import { retryDelay, waitUnlessAborted } from "./retry.js";

/** How `retryBeforeFirstEvent` retries. */
export interface RetryStreamOptions {
  /** Retries after the first attempt, from 0 to MAX_RETRIES_LIMIT. */
  readonly maxRetries: number;
  /** The call's signal: no retry once it aborts, and the wait before one ends when it does. */
  readonly signal: AbortSignal;
}

/**
 * Streams `attempt()`, and again after a failure that may be retried. An attempt ends with `finish` or with one `error` event
 * (its last; an attempt ends with `abortError(signal)` when its signal aborts). The error is held
 * back: when nothing of that attempt was yielded, the signal has not aborted and `retryDelay`
 * allows it, the next attempt starts after the delay; otherwise the error ends the stream. An
 * abort during the wait ends it with `abortError(signal)`.
 */
export async function* retryBeforeFirstEvent(
  attempt: () => AsyncIterable<ModelStreamEvent>,
  options: RetryStreamOptions,
): AsyncGenerator<ModelStreamEvent> {
  const { maxRetries, signal } = options;
  for (let retries = 0; ; retries++) {
    let started = false;
    let failure: Error | undefined;
    for await (const event of attempt()) {
      if (event.type === "error") {
        failure = event.error;
        break;
      }
      started = true;
      yield event;
    }
    if (failure === undefined) return;
    // An attempt reports an abort as the abort's own error, so an aborted call is never retried.
    const delay = started || signal.aborted ? undefined : retryDelay(failure, retries, maxRetries);
    if (delay === undefined) {
      yield { type: "error", error: failure };
      return;
    }
    if (!(await waitUnlessAborted(delay, signal))) {
      yield { type: "error", error: abortError(signal) };
      return;
    }
  }
}
