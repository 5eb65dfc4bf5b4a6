import { AbortedError } from "../errors/errors.js";

/** Throws `AbortedError` (code `aborted`) when `signal` is aborted, with the signal's reason as its cause. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted !== true) return;
  throw new AbortedError(`${what} was aborted.`, { cause: signal.reason });
}
