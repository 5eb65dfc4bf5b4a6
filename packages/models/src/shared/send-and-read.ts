// The one send-and-read loop every adapter runs for an attempt of a model call: send the
// request, read the answer item by item through the adapter's mapping, and let go of the
// request the right way however the attempt ends.
import type { ModelStreamEvent } from "@castellan/harness";
import { abortError, abortRace, untilAborted } from "./abort.js";
import { finishInBackground } from "./release-body.js";
import { retryBeforeFirstEvent } from "./retry-stream.js";

/** Where a failure surfaced, for an adapter whose classification depends on it. */
export type ExchangeSite =
  /** Sending the request or waiting for its answer's headers: the request was refused or never arrived. */
  | "send"
  /** Reading the answer's body: the connection broke. */
  | "read"
  /** Mapping an item: the answer broke its protocol. */
  | "map";

/** An answer whose headers arrived: its body as items, read one at a time. */
export interface OpenAnswer<Item> {
  /** The body's items (SSE events, SDK stream events, AI SDK parts); done when the body ended. */
  readonly items: { next(): Promise<IteratorResult<Item>> };
  /** The provider's id of the request, for errors. */
  readonly requestId?: string | undefined;
  /**
   * Lets go of the body at once. Only for bodies the attempt's signal does not end by itself
   * (a reader the adapter holds); the loop aborts the attempt's signal in any case.
   */
  cancel?(): void;
}

/** Turns one answer's items into stream events. */
export interface AnswerMapping<Item> {
  /**
   * The events of one item, in order. A `finish` among them completes the answer; an `error`
   * ends it. Events after either are dropped. Throws for an item that breaks the protocol.
   */
  map(item: Item): readonly ModelStreamEvent[];
  /** The error the attempt ends with when the body ended before `finish`. */
  ended(): Error;
}

/** What an adapter supplies for one attempt; the loop does the rest. `Answer` may carry more (its headers). */
export interface ProviderExchange<Item, Answer extends OpenAnswer<Item> = OpenAnswer<Item>> {
  /**
   * Sends the request with the attempt's signal (tied to the caller's, and aborted when the
   * attempt is left early) and resolves when the answer's headers arrived. Rejects with
   * whatever the SDK threw; `classify` turns it into the error.
   */
  send(signal: AbortSignal): PromiseLike<Answer>;
  /** The mapping of one answer, made fresh for each attempt. */
  mapping(answer: Answer): AnswerMapping<Item>;
  /**
   * The error for something thrown at `site` (never called after the caller's signal aborted:
   * the call then ends with the signal's reason). A ModelProviderError should pass unchanged.
   */
  classify(error: unknown, site: ExchangeSite, requestId: string | undefined): Error;
}

/**
 * One attempt: sends the request and yields the answer's events, ending with `finish` or with
 * one `error` (the abort's, `abortError(signal)`, when the caller's signal aborted). Never
 * throws.
 *
 * How it lets go of the request:
 * - After `finish` the body is read on to its end in the background (`finishInBackground`),
 *   so the request finishes on its own and its connection is reused; the answer is released
 *   before the last events are yielded, so a caller that stops at `finish` changes nothing.
 * - Anything else (a failure, an abort, the caller leaving early) aborts the attempt's signal
 *   and cancels the body, which closes the connection.
 * - Waiting for the answer or for the next item ends as soon as the caller's signal aborts,
 *   even when the provider ignores its own signal; an answer that opens after that is let go.
 */
export async function* sendAndRead<Item, Answer extends OpenAnswer<Item>>(
  exchange: ProviderExchange<Item, Answer>,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent> {
  if (signal.aborted) {
    yield { type: "error", error: abortError(signal) };
    return;
  }
  const attempt = new AbortController();
  const forward = () => attempt.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  let answer: Answer | undefined;
  /** Waits for each item, or the caller's abort, with one listener on the signal. */
  let race: ReturnType<typeof abortRace> | undefined;
  /** Whether the body ended, or is read to its end in the background: nothing is left to let go. */
  let released = false;
  const letGo = () => {
    answer?.cancel?.();
    attempt.abort();
  };
  try {
    const sending = Promise.resolve().then(() => exchange.send(attempt.signal));
    try {
      answer = await untilAborted(sending, signal);
    } catch (error) {
      // An answer that opens after the caller stopped waiting is let go at once.
      sending.then(
        (late) => late.cancel?.(),
        () => undefined,
      );
      yield { type: "error", error: signal.aborted ? abortError(signal) : exchange.classify(error, "send", undefined) };
      return;
    }
    const { requestId } = answer;
    const mapping = exchange.mapping(answer);
    race = abortRace(signal);
    while (true) {
      let next: IteratorResult<Item>;
      try {
        next = await race.wait(answer.items.next());
      } catch (error) {
        yield {
          type: "error",
          error: signal.aborted ? abortError(signal) : exchange.classify(error, "read", requestId),
        };
        return;
      }
      if (next.done) {
        released = true;
        // The SDKs end their iteration quietly when the request is aborted.
        yield { type: "error", error: signal.aborted ? abortError(signal) : mapping.ended() };
        return;
      }
      let events: readonly ModelStreamEvent[];
      try {
        events = mapping.map(next.value);
      } catch (error) {
        yield { type: "error", error: exchange.classify(error, "map", requestId) };
        return;
      }
      const last = events.findIndex((event) => event.type === "finish" || event.type === "error");
      const shown = last === -1 ? events : events.slice(0, last + 1);
      if (shown.at(-1)?.type === "finish") {
        released = true;
        finishInBackground(answer.items.next(), letGo);
      }
      yield* shown;
      if (last !== -1) return;
    }
  } finally {
    signal.removeEventListener("abort", forward);
    race?.close();
    if (!released) letGo();
  }
}

/** How many times a call is tried and what ends it. */
export interface ModelCallOptions {
  /** Retries after the first attempt, only while nothing was streamed; 0 to MAX_RETRIES_LIMIT (10). */
  readonly maxRetries: number;
  /** The caller's signal. */
  readonly signal: AbortSignal;
}

/**
 * A whole model call: `sendAndRead` attempts under the shared retry policy
 * (`retryBeforeFirstEvent`: only before anything was streamed, only retryable errors, at most
 * `maxRetries`, honouring `retryAfterMs`). Never throws.
 */
export function streamModelCall<Item, Answer extends OpenAnswer<Item>>(
  exchange: ProviderExchange<Item, Answer>,
  options: ModelCallOptions,
): AsyncGenerator<ModelStreamEvent> {
  return retryBeforeFirstEvent(() => sendAndRead(exchange, options.signal), options);
}
