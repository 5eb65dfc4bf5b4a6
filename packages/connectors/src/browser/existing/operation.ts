// One operation's CDP session on the granted target: attached for the operation, detached
// before the operation settles — also when it fails, times out or is aborted, and also when
// the attach answers only after that.
import { BrowserToolError } from "@castellan/node-runner";
import type { CdpEvent, CdpTransport } from "./cdp-transport.js";

/** What an operation's work is given: commands and events of its own attached session. */
export interface PageSession {
  /** Sends a command to the attached target; rejects when the operation is aborted or times out. */
  send<T = any>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Calls `listener` for this session's events until the returned function is called. */
  onEvent(listener: (event: CdpEvent) => void): () => void;
  /** Waits `ms` (at most), rejecting when the operation ends first. */
  delay(ms: number): Promise<void>;
  /** Aborted with the operation (the caller's signal or its timeout). */
  readonly signal: AbortSignal;
}

/** The longest the attach answer and the detach are waited for once the operation ended. */
const releaseTimeoutMs = 5_000;

/** Rejects with `signal`'s reason once it aborts; otherwise settles as `promise` does. */
export function guarded<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function bounded<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/**
 * Attaches to `targetId` (`Target.attachToTarget`, `flatten: true`), runs `work` within
 * `timeoutMs` and `signal`, and detaches (`Target.detachFromTarget`) before settling.
 */
export async function withAttachedTarget<T>(
  transport: CdpTransport,
  targetId: string,
  options: { readonly signal: AbortSignal; readonly timeoutMs: number },
  work: (page: PageSession) => Promise<T>,
): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () =>
      timeout.abort(
        new BrowserToolError(
          "browser_timeout",
          `The operation did not finish within ${options.timeoutMs} ms; observe the page and try again.`,
        ),
      ),
    options.timeoutMs,
  );
  const signal = AbortSignal.any([options.signal, timeout.signal]);
  const attach = transport.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
  try {
    const { sessionId } = await guarded(attach, signal);
    const page: PageSession = {
      signal,
      send: (method, params) => guarded(transport.send(method, params, sessionId), signal),
      onEvent: (listener) =>
        transport.onEvent((event) => {
          if (event.sessionId === sessionId) listener(event);
        }),
      delay: (ms) => guarded(new Promise<void>((resolve) => setTimeout(resolve, ms)), signal),
    };
    return await work(page);
  } finally {
    clearTimeout(timer);
    const attached = await bounded(attach, releaseTimeoutMs);
    if (attached && !transport.closed) {
      await bounded(transport.send("Target.detachFromTarget", { sessionId: attached.sessionId }), releaseTimeoutMs);
    }
  }
}
