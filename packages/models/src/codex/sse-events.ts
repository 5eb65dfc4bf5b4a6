// The data of one Responses stream event, read from the raw SSE message under the rules the
// `openai` SDK's stream iterator applies, so errors reach the classifier as they did through it.

import { openaiSdk } from "../openai-compatible/sdk.js";
import type { SseMessage } from "../shared/sse.js";

/** `data: [DONE]`: nothing more is read from the stream. */
export const streamDone = Symbol("[DONE]");

/**
 * The parsed data of `message`, or `streamDone`. Throws a SyntaxError for data that is not
 * JSON, and the SDK's APIError (without a status) for an `error` event or data carrying an
 * `error`, with the answer's headers.
 */
export function responsesEventData(message: SseMessage, headers: Headers): unknown {
  if (message.data === "[DONE]") return streamDone;
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    throw new SyntaxError("Error reading response: malformed server-sent event JSON.");
  }
  const carried = (data as { error?: unknown } | null)?.error;
  if (message.event === "error" || carried) {
    // The SDK is loaded: its client sent the request this answers.
    const { APIError } = openaiSdk.loaded() as NonNullable<ReturnType<typeof openaiSdk.loaded>>;
    throw new APIError(undefined, (carried ?? data) as object, undefined, headers);
  }
  return data;
}
