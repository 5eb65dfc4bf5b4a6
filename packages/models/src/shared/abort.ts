// What every adapter does with its caller's signal: end the call with the signal's reason, and
// stop waiting for work that does not listen to the signal itself.

/**
 * The error a call ends with when its signal aborts: the signal's reason when it is an Error
 * (`AbortController.abort()` without a reason gives a DOMException named `AbortError`), else
 * an Error named `AbortError` carrying the reason as its cause.
 */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error("The model call was aborted.", { cause: reason });
  error.name = "AbortError";
  return error;
}

/**
 * One waiter per call for many waits: `wait(promise)` settles as `promise` does, or rejects with
 * the signal's reason as soon as the signal aborts. It listens to the signal once, not once per
 * wait, which matters to a loop that waits for every item of a stream. `close` removes the
 * listener.
 */
export function abortRace(signal: AbortSignal): { wait<T>(promise: Promise<T>): Promise<T>; close(): void } {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  // Nobody may be waiting when it rejects.
  aborted.catch(() => undefined);
  return {
    wait<T>(promise: Promise<T>): Promise<T> {
      // Attached even after an abort, so a later rejection of `promise` is never unhandled.
      promise.catch(() => undefined);
      return Promise.race([promise, aborted]);
    },
    close() {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Settles as `promise` does, or rejects with the signal's reason as soon as the signal aborts
 * (at once when it already has), so a task that ignores its signal cannot hold the caller. Without
 * a signal it is `promise` itself. Leaves no listener on the signal once either side settles.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    // Attached even after an abort, so a later rejection of `promise` is never unhandled.
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
