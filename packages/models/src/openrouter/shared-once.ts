// A task run at most once to success, shared by concurrent callers, each of whom can stop
// waiting with their own signal. The task itself is aborted only when every waiting caller has
// given up; a failed or abandoned task is forgotten, so a later call starts it again.
import { untilAborted } from "../shared/abort.js";

/** Runs the shared task, or returns its remembered result. Rejects with the caller's abort reason. */
export type SharedOnce<T> = (signal?: AbortSignal) => Promise<T>;

export function sharedOnce<T>(task: (signal: AbortSignal) => Promise<T>): SharedOnce<T> {
  let result: { readonly value: T } | undefined;
  let running: { readonly promise: Promise<T>; readonly controller: AbortController; waiters: number } | undefined;
  return async (signal) => {
    if (result) return result.value;
    signal?.throwIfAborted();
    if (!running) {
      const controller = new AbortController();
      const current = { controller, waiters: 0, promise: task(controller.signal) };
      running = current;
      current.promise.then(
        (value) => {
          result = { value };
          if (running === current) running = undefined;
        },
        () => {
          if (running === current) running = undefined;
        },
      );
    }
    const current = running;
    current.waiters++;
    try {
      return await untilAborted(current.promise, signal);
    } finally {
      current.waiters--;
      if (current.waiters === 0 && running === current) {
        // Everyone stopped waiting before it finished: stop the request, and start afresh next time.
        current.controller.abort(signal?.reason);
        running = undefined;
      }
    }
  };
}
