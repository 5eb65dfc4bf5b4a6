import type { Anthropic } from "@anthropic-ai/sdk";
import type { ModelStreamEvent } from "@castellan/harness";
import { abortError } from "../shared/abort.js";
import { malformed } from "../shared/malformed.js";
import type { Prices } from "../shared/pricing.js";
import { finishInBackground } from "../shared/release-body.js";
import { PROVIDER, toModelError } from "./errors.js";
import { sendMessages } from "./send-messages.js";
import { ProtocolError, StreamState } from "./stream-state.js";

/** What one streamed call needs besides the request. */
export interface StreamContext {
  readonly client: Anthropic;
  readonly apiKey: string;
  readonly pricing: Prices | undefined;
  readonly signal: AbortSignal;
}

/**
 * Sends one streaming Messages request and yields its harness events. Never throws: every
 * failure ends the stream with an `error` event. The SDK retries (up to its `maxRetries`) only
 * until the response starts; once the stream has started nothing is retried. Leaving early
 * (abort, a failure, the consumer stopping) aborts the request, which closes its connection;
 * a complete answer whose body has ended leaves the connection to be reused.
 */
export async function* streamMessages(
  params: Anthropic.MessageCreateParamsStreaming,
  context: StreamContext,
): AsyncGenerator<ModelStreamEvent> {
  const { client, apiKey, pricing, signal } = context;
  if (signal.aborted) {
    yield { type: "error", error: abortError(signal) };
    return;
  }
  let events: AsyncIterator<Anthropic.RawMessageStreamEvent>;
  let stream: { readonly controller: AbortController };
  let requestId: string | undefined;
  try {
    const { data, request_id } = await sendMessages(client, params, signal);
    stream = data;
    events = data[Symbol.asyncIterator]();
    requestId = request_id ?? undefined;
  } catch (error) {
    yield { type: "error", error: signal.aborted ? abortError(signal) : toModelError(error, apiKey) };
    return;
  }

  const state = new StreamState(pricing);
  let failure: Error | undefined;
  let finished = false;
  try {
    while (!state.complete) {
      let next: IteratorResult<Anthropic.RawMessageStreamEvent>;
      try {
        next = await events.next();
      } catch (error) {
        failure = signal.aborted ? abortError(signal) : toModelError(error, apiKey);
        break;
      }
      if (next.done) {
        finished = true;
        break;
      }
      let produced: ModelStreamEvent[];
      try {
        produced = state.accept(next.value);
      } catch (error) {
        if (!(error instanceof ProtocolError)) throw error;
        failure = malformed(PROVIDER, `Anthropic's stream broke its protocol: ${error.message}`, { requestId });
        break;
      }
      for (const event of produced) yield event;
    }
  } finally {
    // After message_stop the body ends too: reading on to that end lets the request finish on
    // its own. Otherwise (left early, failed) the request is aborted.
    if (!finished && state.complete && failure === undefined) {
      finishInBackground(events.next(), () => stream.controller.abort());
    } else if (!finished) {
      stream.controller.abort();
    }
  }
  if (failure) {
    yield { type: "error", error: failure };
  } else if (!state.complete) {
    // The SDK ends its iteration quietly when the signal aborts; otherwise the body just ended.
    yield {
      type: "error",
      error: signal.aborted
        ? abortError(signal)
        : malformed(PROVIDER, "Anthropic's stream ended before message_stop: the answer is incomplete.", { requestId }),
    };
  }
}
