// The event of one Messages stream message, read from the raw SSE message under the rules the
// Anthropic SDK's stream iterator applies, so errors reach the classifier as they did through it.
import type { Anthropic } from "@anthropic-ai/sdk";
import type { SseMessage } from "../shared/sse.js";
import { anthropicSdk } from "./sdk.js";

/** A message the SDK's iterator passes over: a `ping`, one without an event name, or one without data. */
export const skipped = Symbol("skipped");

/**
 * The parsed event of `message`, or `skipped`. Throws the SDK's APIError (without a status)
 * for an `error` event, with the answer's headers and the error's type, and a SyntaxError for
 * data that is not JSON.
 */
export function messagesEventData(
  message: SseMessage,
  headers: Headers,
): Anthropic.RawMessageStreamEvent | { readonly type: string } | typeof skipped {
  if (message.event === "ping" || message.event === undefined) return skipped;
  if (message.event === "error") {
    let body: unknown = message.data;
    try {
      body = JSON.parse(message.data);
    } catch {
      // The SDK keeps the text when it is not JSON.
    }
    const type = (body as { error?: { type?: unknown } } | null)?.error?.type;
    // The SDK is loaded: its client sent the request this answers.
    const { APIError } = anthropicSdk.loaded() as NonNullable<ReturnType<typeof anthropicSdk.loaded>>;
    const errorType = typeof type === "string" ? (type as ConstructorParameters<typeof APIError>[4]) : undefined;
    throw new APIError(undefined, body as object, undefined, headers, errorType);
  }
  if (!message.data) return skipped;
  return JSON.parse(message.data) as Anthropic.RawMessageStreamEvent;
}
