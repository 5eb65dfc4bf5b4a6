// The retry policy every adapter follows (docs/adding-a-model-adapter.md, "Retries"): how many
// retries an option may ask for, how long to wait before each, and waiting without outliving
// the caller's signal.
import { DeclarationError, isModelProviderError } from "@castellan/harness";
import { abortError } from "./abort.js";

/** Retries when the options name no `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 2;

/** The most retries a `maxRetries` option accepts: each one can wait up to a minute. */
export const MAX_RETRIES_LIMIT = 10;

/**
 * A `maxRetries` option of the factory `where`: DEFAULT_MAX_RETRIES (2) when undefined, else an
 * integer from 0 to MAX_RETRIES_LIMIT (10); anything else throws DeclarationError.
 */
export function retryCount(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_MAX_RETRIES;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_RETRIES_LIMIT) {
    throw new DeclarationError(
      `${where}: maxRetries must be an integer from 0 to ${MAX_RETRIES_LIMIT}; got ${String(value)}.`,
    );
  }
  return value;
}

/** The longest wait before a retry; a provider asking for longer gets its error reported instead. */
export const MAX_RETRY_DELAY_MS = 60_000;

/** The first backoff when the provider named no wait; doubled on each retry up to LONGEST_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 8_000;

/**
 * How long to wait before retry number `attempt` (0-based), or undefined when the failure is
 * reported instead: it is not a retryable ModelProviderError, `maxRetries` retries were made,
 * or the provider's `retryAfterMs` exceeds MAX_RETRY_DELAY_MS (60 s). Without a `retryAfterMs`
 * the wait is 0.5 s, 1 s, 2 s, … at most 8 s.
 */
export function retryDelay(error: Error, attempt: number, maxRetries: number): number | undefined {
  if (!isModelProviderError(error) || !error.retryable || attempt >= maxRetries) return undefined;
  const delay = error.retryAfterMs ?? Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt);
  return delay <= MAX_RETRY_DELAY_MS ? delay : undefined;
}

/**
 * Waits `ms`: true when the time passed, false as soon as the signal aborts (at once when it
 * already has). Never rejects, and leaves no timer or listener behind.
 */
export function waitUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `task`, and again after a failure `retryDelay` allows (a retryable ModelProviderError,
 * at most `maxRetries` times, waiting what it asks up to MAX_RETRY_DELAY_MS): the policy of a
 * model call, for requests that stream nothing (a catalog page, a key check). Rejects with
 * the last failure, or with `abortError(signal)` when the signal aborts while waiting.
 */
export async function retrying<T>(
  task: () => Promise<T>,
  options: { readonly maxRetries: number; readonly signal?: AbortSignal | undefined },
): Promise<T> {
  const signal = options.signal ?? new AbortController().signal;
  for (let retries = 0; ; retries++) {
    try {
      return await task();
    } catch (error) {
      const delay =
        error instanceof Error && !signal.aborted ? retryDelay(error, retries, options.maxRetries) : undefined;
      if (delay === undefined) throw error;
      if (!(await waitUnlessAborted(delay, signal))) throw abortError(signal);
    }
  }
}
