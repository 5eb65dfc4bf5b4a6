// How an adapter lets go of a response once it has the whole answer. After an answer's last
// event a provider ends the body, but the end may come a moment later, in its own chunk.
// Reading on to that end (in the background: the caller already has the whole answer) lets the
// request finish on its own, so its connection goes back to the pool. Aborting instead would
// cost an AbortError on every call, and a connection whose body had not ended yet is closed
// rather than reused. This is also what the SDKs' own stream iterators do after the last event.

/**
 * After an answer's last event: lets `read`, the next read of its body, finish the request in
 * the background; if it brings more data instead of the end, `abort` ends the request. A read
 * that fails (the request failed or was aborted meanwhile) leaves nothing to release.
 */
export function finishInBackground(read: Promise<{ readonly done?: boolean }>, abort: () => void): void {
  read.then(
    (next) => {
      if (!next.done) abort();
    },
    () => undefined,
  );
}
