// The wait a provider asks for before a retry, read from its answer's headers.

/**
 * Response headers as the SDKs hand them over: a fetch `Headers` (or anything with `get`), or a
 * plain record such as the AI SDK's `responseHeaders` (names matched without regard to case).
 */
export type HeaderSource =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | undefined>>
  | undefined;

/**
 * Milliseconds to wait, from `retry-after-ms` (milliseconds, preferred: OpenAI and Anthropic
 * send it) or else `retry-after` (seconds, or an HTTP date counted from `now`; a past date is
 * 0). Rounded up to whole milliseconds; undefined when both are absent, negative or unreadable.
 */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(header(headers, "retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const value = header(headers, "retry-after")?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null | undefined }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | undefined>>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() === name && typeof value === "string") return value;
  }
  return undefined;
}
