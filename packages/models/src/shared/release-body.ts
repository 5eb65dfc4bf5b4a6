// How an adapter lets go of a response body once it stops reading. A provider ends the body
// right after an answer's last event, so after a complete answer the body has usually ended
// already: reading that end returns the connection to the pool. Cancelling instead aborts the
// request, which costs an AbortError and may close a connection the next call could reuse.

/** Resolves on the next turn of the event loop, after pending I/O callbacks. */
function nextMacrotask(): Promise<false> {
  return new Promise((resolve) => setImmediate(() => resolve(false)));
}

/**
 * Releases `reader`: when its body has ended, or ends before the next turn of the event loop,
 * it is read to that end; otherwise (data still coming, an answer abandoned mid-way, a read
 * error) it is cancelled, which ends the request. Never rejects.
 */
export async function releaseBody(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const ended = await Promise.race([
    reader.read().then(
      (chunk) => chunk.done,
      () => false,
    ),
    nextMacrotask(),
  ]);
  if (!ended) await reader.cancel().catch(() => undefined);
  reader.releaseLock();
}
