// Sends one streaming Messages request without the SDK's `messages.create` wrapper.
import type { Anthropic } from "@anthropic-ai/sdk";
import type { Stream } from "@anthropic-ai/sdk/core/streaming";

/**
 * POSTs `params` to `/v1/messages` through the client and resolves with the event stream and
 * the request id.
 *
 * `client.messages.create` (SDK 1.10) does three things on top of this request: it prints a
 * deprecation notice with `console.warn` for some model ids (`claude-sonnet-4-5`, or
 * `claude-opus-4-6` with `thinking.type: "enabled"`) on every call, bypassing the client's
 * `logLevel` and `logger`, so no option silences it; it adds headers for parameters this adapter
 * never sends (`user_profile_id`, `workspace_id`) and for the SDK's own helpers; and it opens a
 * tracing span when a tracer is configured, which this adapter never does. The request on the
 * wire is the same, and the stream is parsed by the SDK exactly as `create` would, so calling
 * the client's `post` directly keeps the host's stderr clear without patching `console`.
 */
export function sendMessages(
  client: Anthropic,
  params: Anthropic.MessageCreateParamsStreaming,
  signal: AbortSignal,
): Promise<{ data: Stream<Anthropic.RawMessageStreamEvent>; request_id: string | null | undefined }> {
  return client
    .post<Stream<Anthropic.RawMessageStreamEvent>>("/v1/messages", { body: params, stream: true, signal })
    .withResponse();
}
