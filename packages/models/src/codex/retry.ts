import type { ModelProviderError } from "@castellan/harness";

/** The longest wait before a retry; a provider asking for longer gets its error reported instead. */
export const MAX_RETRY_DELAY_MS = 60_000;

/**
 * How long to wait before retry number `attempt` (0-based), or undefined when the error should
 * not be retried: the provider's `retryAfterMs` when given, else 0.5 s doubling up to 8 s.
 */
export function retryDelay(error: ModelProviderError, attempt: number, maxRetries: number): number | undefined {
  if (!error.retryable || attempt >= maxRetries) return undefined;
  const delay = error.retryAfterMs ?? Math.min(8_000, 500 * 2 ** attempt);
  return delay > MAX_RETRY_DELAY_MS ? undefined : delay;
}

/** Waits `ms`, or rejects as soon as the signal aborts; leaves no timer or listener behind. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
