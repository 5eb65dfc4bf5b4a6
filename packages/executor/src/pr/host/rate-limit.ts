/** The longest single wait for a rate limit, unless set: 60 s. */
export const defaultMaxRateLimitWaitMs = 60_000;
/** The first backoff step when the host names no time: 1 s, doubling with each retry. */
export const defaultRateLimitBackoffMs = 1_000;

/** How a rate-limit wait is worked out besides the answer's headers. */
export interface RateLimitTiming {
  /** The current time in epoch milliseconds, to read `x-ratelimit-reset` and an HTTP-date `retry-after` against. */
  readonly now: number;
  /** The first backoff step; retry `n` (from 0) waits `backoffMs * 2 ** n`. */
  readonly backoffMs: number;
  /** The cap on the wait, whatever the headers ask for. */
  readonly maxWaitMs: number;
}

/**
 * True for GitHub's rate-limit answers: every 429, and a 403 that says the limit is spent
 * (`x-ratelimit-remaining: 0`) or when to come back (`retry-after`). Any other 403 is a
 * permission refusal that no wait would change.
 */
export function isRateLimited(status: number, headers: Headers): boolean {
  if (status === 429) return true;
  if (status !== 403) return false;
  return headers.get("x-ratelimit-remaining")?.trim() === "0" || headers.has("retry-after");
}

/**
 * The milliseconds to wait before retry `retry` (0 for the first): `retry-after` (seconds, or
 * an HTTP date), else a future `x-ratelimit-reset` (epoch seconds), else an exponential
 * backoff; never below 0, never above `timing.maxWaitMs`.
 */
export function rateLimitWaitMs(headers: Headers, retry: number, timing: RateLimitTiming): number {
  const wait = announcedWaitMs(headers, timing.now) ?? timing.backoffMs * 2 ** retry;
  return Math.min(Math.max(0, Math.ceil(wait)), timing.maxWaitMs);
}

function announcedWaitMs(headers: Headers, now: number): number | undefined {
  const retryAfter = headers.get("retry-after")?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1_000;
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return date - now;
  }
  const reset = headers.get("x-ratelimit-reset")?.trim();
  // GitHub sends the reset on every answer; one already past says nothing about this wait.
  if (reset && /^\d+$/.test(reset) && Number(reset) * 1_000 > now) return Number(reset) * 1_000 - now;
  return undefined;
}
