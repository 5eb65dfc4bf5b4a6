/** The largest answer read from a code host: 1 MiB. A pull request's JSON is a few KiB. */
export const maxResponseBytes = 1_048_576;

/**
 * The text of `response`'s body, or undefined when it announces or reaches more than
 * `limit` bytes (default 1 MiB); nothing past the bound is read and the rest is cancelled, so
 * a runaway answer costs at most `limit` bytes of memory. A failed read rejects as it came.
 */
export async function readBoundedText(response: Response, limit = maxResponseBytes): Promise<string | undefined> {
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(announced) && announced > limit) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // A length header can be absent (chunked) or wrong, so the count is what decides.
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
