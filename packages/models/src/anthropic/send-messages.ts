// Sends one streaming Messages request without the SDK's `messages.create` wrapper.
import type { Anthropic } from "@anthropic-ai/sdk";

/**
 * POSTs `params` to `/v1/messages` through the client and resolves with the raw response once
 * its headers arrived (an error status rejects with the SDK's APIError, as `create` would).
 *
 * `client.messages.create` (SDK 1.10) does three things on top of this request: it prints a
 * deprecation notice with `console.warn` for some model ids (`claude-sonnet-4-5`, or
 * `claude-opus-4-6` with `thinking.type: "enabled"`) on every call, bypassing the client's
 * `logLevel` and `logger`, so no option silences it; it adds headers for parameters this adapter
 * never sends (`user_profile_id`, `workspace_id`) and for the SDK's own helpers; and it opens a
 * tracing span when a tracer is configured, which this adapter never does. The request on the
 * wire is the same, so calling the client's `post` directly keeps the host's stderr clear
 * without patching `console`. The body is decoded by this adapter (sse-events.ts), under the
 * rules of the SDK's stream iterator.
 */
export function sendMessages(
  client: Anthropic,
  params: Anthropic.MessageCreateParamsStreaming,
  signal: AbortSignal,
): Promise<Response> {
  return client.post("/v1/messages", { body: params, stream: true, signal }).asResponse();
}
