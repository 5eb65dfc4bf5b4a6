import { RunAbortedError } from "../errors/errors.js";

/**
 * Waits for `work`, but rejects with RunAbortedError as soon as `signal` aborts, so a hook or
 * adapter that ignores its signal cannot hold a Run. The work itself is not cancelled here;
 * it was given the signal.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new RunAbortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunAbortedError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
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
