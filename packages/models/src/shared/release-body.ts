// How an adapter lets go of a response once it stops reading. After an answer's last event a
// provider ends the body, but the end may come a moment later, in its own chunk. Reading on to
// that end (in the background: the caller already has the whole answer) lets the request finish
// on its own, so its connection goes back to the pool. Aborting instead would cost an AbortError
// on every call, and a connection whose body had not ended yet is closed rather than reused.
// This is also what the SDKs' own stream iterators do after the last event.

/**
 * After an answer's last event: lets `read`, the next read of its stream, finish the request in
 * the background; if it brings more data instead of the end, `abort` ends the request.
 */
export function finishInBackground(read: Promise<{ readonly done?: boolean }>, abort: () => void): void {
  read.then(
    (next) => {
      if (!next.done) abort();
    },
    // The request failed or was aborted meanwhile: nothing is left to release.
    () => undefined,
  );
}

/**
 * Releases `reader`: after a complete answer the body is read to its end in the background
 * (cancelled if more data comes); otherwise (an answer abandoned mid-way, a read error) it is
 * cancelled now, which ends the request. Never rejects.
 */
export async function releaseBody(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  options: { readonly complete: boolean },
): Promise<void> {
  if (options.complete) {
    finishInBackground(reader.read(), () => {
      reader.cancel().catch(() => undefined);
    });
    return;
  }
  await reader.cancel().catch(() => undefined);
  reader.releaseLock();
}
