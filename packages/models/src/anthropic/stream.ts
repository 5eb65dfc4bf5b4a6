// One streamed Messages call: the request as an exchange for the shared send-and-read loop and
// retry policy (shared/send-and-read.ts).
import type { Anthropic } from "@anthropic-ai/sdk";
import type { ModelStreamEvent } from "@castellan/harness";
import type { Prices } from "../shared/pricing.js";
import { streamModelCall } from "../shared/send-and-read.js";
import { type SseAnswer, type SseMessage, sseAnswer } from "../shared/sse.js";
import { toModelError } from "./errors.js";
import { sendMessages } from "./send-messages.js";
import { messagesEventData, skipped } from "./sse-events.js";
import { StreamState } from "./stream-state.js";

/** What one streamed call needs besides the request. */
export interface StreamContext {
  /** The SDK client, made on the first request. */
  readonly client: () => Promise<Anthropic>;
  readonly apiKey: string;
  readonly pricing: Prices | undefined;
  /** Retries before anything was streamed; the SDK's own retries are off (client.ts). */
  readonly maxRetries: number;
  readonly signal: AbortSignal;
}

/**
 * Sends one streaming Messages request and yields its harness events. Never throws: every
 * failure ends the stream with an `error` event. A failure before anything was streamed is
 * retried under the shared policy; a complete answer's body is read to its end so its
 * connection is reused, and any other ending closes the connection.
 */
export function streamMessages(
  params: Anthropic.MessageCreateParamsStreaming,
  context: StreamContext,
): AsyncGenerator<ModelStreamEvent> {
  const { client, apiKey, pricing } = context;
  return streamModelCall<SseMessage, SseAnswer>(
    {
      async send(signal) {
        const response = await sendMessages(await client(), params, signal);
        return sseAnswer(response, response.headers.get("request-id") ?? undefined);
      },
      mapping: ({ requestId, headers }) => {
        const state = new StreamState(pricing, requestId);
        return {
          map: (message) => {
            const event = messagesEventData(message, headers);
            return event === skipped ? [] : state.map(event);
          },
          ended: () => state.ended(),
        };
      },
      classify: (error) => toModelError(error, apiKey),
    },
    context,
  );
}
