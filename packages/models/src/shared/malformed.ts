// The one error a stream that breaks its provider's protocol ends with.
import { ModelProviderError } from "@castellan/harness";

/**
 * A `model_stream_malformed` error of `provider` (the adapter's name on its errors): bad
 * framing, an event that is not JSON, an event the protocol does not allow where it came, or a
 * body that ended before the answer's terminal event. Not retryable once anything streamed
 * (the retry loop never retries then); `message` is the adapter's own text, never the server's.
 */
export function malformed(
  provider: string,
  message: string,
  options: { readonly requestId?: string | undefined } = {},
): ModelProviderError {
  return new ModelProviderError("model_stream_malformed", message, {
    provider,
    ...(options.requestId ? { requestId: options.requestId } : {}),
  });
}
