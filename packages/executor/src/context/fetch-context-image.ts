import { randomUUID } from "node:crypto";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** What one transfer did: the file landed, or a short reason it did not. */
export type TransferResult =
  | { readonly ok: true; readonly bytes: number }
  | { readonly ok: false; readonly reason: string };

/** A byte bound in words: `10 MiB`, `4 KiB`, or `1000 bytes`. */
export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** `<base>/<artifactId>`, the id encoded, whether or not `base` ends with a slash (its query kept). */
export function artifactUrl(base: string, artifactId: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${encodeURIComponent(artifactId)}`;
  url.hash = "";
  return url.href;
}

// Only a code, never an error's message: a message may quote a URL or a header.
function codeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Fetches one image (`GET <url>/<artifactId>` with the bearer token) into `destination`,
 * refusing one over `maxBytes` by its declared length before reading the body and by the
 * stream as it arrives. The body goes to a temporary file beside the destination, renamed over
 * it only when whole, so a refused or broken transfer leaves no partial file. Never throws;
 * `describeAbort` words an abort of `signal` ("timed out", "cancelled").
 */
export async function fetchContextImage(options: {
  readonly url: string;
  readonly artifactId: string;
  readonly token: string;
  readonly destination: string;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly fetch: typeof fetch;
  readonly describeAbort: () => string;
}): Promise<TransferResult> {
  const over = `over ${describeBytes(options.maxBytes)}`;
  // Aborting this one ends the connection of a refused body, so the rest is never sent.
  const transfer = new AbortController();
  let landed = false;
  let writing = false;
  let temporary: string | undefined;
  let handle: FileHandle | undefined;
  try {
    const response = await options.fetch(artifactUrl(options.url, options.artifactId), {
      headers: { authorization: `Bearer ${options.token}` },
      signal: AbortSignal.any([options.signal, transfer.signal]),
    });
    if (!response.ok) return { ok: false, reason: `HTTP ${response.status}` };
    const declared = response.headers.get("content-length");
    if (declared !== null && Number(declared) > options.maxBytes) return { ok: false, reason: over };
    if (!response.body) return { ok: false, reason: "empty response" };
    writing = true;
    temporary = join(dirname(options.destination), `.${basename(options.destination)}.${randomUUID()}.part`);
    handle = await open(temporary, "wx", 0o600);
    writing = false;
    let bytes = 0;
    // A reader rather than for-await: the DOM lib's ReadableStream type has no async iterator.
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      bytes += read.value.byteLength;
      if (bytes > options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: over };
      }
      writing = true;
      await handle.write(read.value);
      writing = false;
    }
    // An empty file would read as a miss on every later staging; it is no image either.
    if (bytes === 0) return { ok: false, reason: "empty response" };
    writing = true;
    await handle.close();
    handle = undefined;
    await rename(temporary, options.destination);
    temporary = undefined;
    landed = true;
    return { ok: true, bytes };
  } catch (error) {
    if (options.signal.aborted) return { ok: false, reason: options.describeAbort() };
    const code = codeOf(error);
    const what = writing ? "could not write the file" : "transfer failed";
    return { ok: false, reason: code ? `${what} (${code})` : what };
  } finally {
    if (!landed) transfer.abort();
    await handle?.close().catch(() => undefined);
    if (temporary !== undefined) await rm(temporary, { force: true }).catch(() => undefined);
  }
}
