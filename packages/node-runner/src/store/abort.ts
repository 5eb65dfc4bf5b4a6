import { CastellanError } from "@castellan/harness";

/**
 * Throws when `signal` is aborted: a CastellanError with code "aborted", named "AbortError"
 * like the platform's abort errors, with the signal's reason as its cause.
 */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted !== true) return;
  const error = new CastellanError("aborted", `${what} was aborted.`, { cause: signal.reason });
  // Callers that test `error.name === "AbortError"` (the platform convention) recognise it.
  error.name = "AbortError";
  throw error;
}
