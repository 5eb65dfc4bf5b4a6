/** True for `localhost`, `::1` (bracketed or not) and any 127.0.0.0/8 address. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Whether a body's URL may be used: `https:`, or `http:` to a loopback address, or `file:` where
 * `allowFile` says so (tests and benches); never with credentials in it.
 */
export function isAllowedUrl(value: string, allowFile = false): boolean {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return false;
  }
  if (parsed.username || parsed.password) return false;
  if (parsed.protocol === "https:") return true;
  if (parsed.protocol === "http:") return isLoopbackHost(parsed.hostname);
  return parsed.protocol === "file:" && allowFile;
}
