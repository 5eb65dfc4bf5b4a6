// When and how long to wait before sending a failed request again.
import { isModelProviderError } from "@castellan/harness";

/** Longest wait between attempts: a provider asking for more is not retried here. */
export const longestRetryDelayMs = 60_000;

/**
 * How long to wait before the next attempt, or undefined when the error is not worth retrying:
 * not a retryable ModelProviderError, or the provider asked to wait longer than a minute.
 * Without a provider's `retry-after`, waits 0.5 s, 1 s, 2 s, … up to 8 s.
 */
export function retryDelayMs(error: Error, attempt: number): number | undefined {
  if (!isModelProviderError(error) || !error.retryable) return undefined;
  const delay = error.retryAfterMs ?? Math.min(500 * 2 ** attempt, 8_000);
  return delay <= longestRetryDelayMs ? delay : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts; leaves no timer behind. */
export function waitBeforeRetry(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
