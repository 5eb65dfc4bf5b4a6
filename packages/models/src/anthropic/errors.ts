// Turns what the SDK throws into ModelProviderErrors, at the boundary where it happens.
import { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { type ModelErrorCode, ModelProviderError } from "@castellan/harness";
import { redact } from "../shared/redact.js";
import { retryAfterMs } from "../shared/retry-after.js";

const PROVIDER = "anthropic";

/**
 * Anthropic reports a prompt longer than the context window as a plain 400
 * `invalid_request_error` ("prompt is too long: 210000 tokens > 200000 maximum", or "input
 * length and `max_tokens` exceed context limit: …"); neither the error type nor
 * `error.details.error_code` tells it apart from other invalid requests. This is the one case
 * classified from the message text, and only for that status and type.
 */
const CONTEXT_LENGTH_MESSAGE = /prompt is too long|exceed context limit/i;

/** Anthropic's error types (`error.type` of an error body or an `error` stream event), mapped. */
const TYPE_CODES: Readonly<Record<string, ModelErrorCode>> = {
  authentication_error: "model_auth",
  permission_error: "model_auth",
  // The account cannot pay for the request: as final as a refused key, and fixed the same way.
  billing_error: "model_auth",
  rate_limit_error: "model_rate_limited",
  overloaded_error: "model_overloaded",
  api_error: "model_server_error",
  timeout_error: "model_server_error",
  not_found_error: "model_unknown",
  request_too_large: "model_context_overflow",
  invalid_request_error: "model_bad_request",
};

/** Converts anything the SDK or the stream threw into a ModelProviderError. */
export function toModelError(error: unknown, apiKey: string): ModelProviderError {
  if (error instanceof ModelProviderError) return error;
  if (error instanceof APIUserAbortError) {
    return make("model_network", "The request to Anthropic was aborted.", apiKey, { cause: error, retryable: false });
  }
  if (error instanceof APIConnectionError) {
    return make("model_network", `Could not reach Anthropic: ${error.message}`, apiKey, { cause: error });
  }
  if (error instanceof APIError) return fromApiError(error, apiKey);
  if (error instanceof SyntaxError) {
    return make("model_stream_malformed", `Anthropic sent an event that is not JSON: ${error.message}`, apiKey, {
      cause: error,
    });
  }
  // Anything else was thrown while reading the response body: the connection failed.
  const message = error instanceof Error ? error.message : String(error);
  return make("model_network", `The connection to Anthropic failed: ${message}`, apiKey, { cause: error });
}

function fromApiError(error: APIError, apiKey: string): ModelProviderError {
  const status = error.status;
  const type = error.type ?? undefined;
  const detail = error.apiMessage ?? error.message;
  const code = classify(status, type, error.apiMessage);
  const requestId = error.requestID ?? requestIdOf(error.error);
  const label = [status, type].filter((part) => part !== undefined).join(" ");
  const summary = `${SUMMARIES[code]} (${label || "no status"}): ${detail}`;
  const wait = code === "model_rate_limited" || code === "model_overloaded" ? retryAfterMs(error.headers) : undefined;
  return make(code, summary, apiKey, {
    cause: error,
    ...(status !== undefined ? { status } : {}),
    ...(requestId ? { requestId } : {}),
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
  });
}

/** The code of an error status and Anthropic error type. */
export function classify(status: number | undefined, type: string | undefined, message: string | null): ModelErrorCode {
  if (status === 400 || (status === undefined && type === "invalid_request_error")) {
    if ((type === undefined || type === "invalid_request_error") && message && CONTEXT_LENGTH_MESSAGE.test(message)) {
      return "model_context_overflow";
    }
  }
  if (status === 401 || status === 403) return "model_auth";
  if (status === 402) return "model_auth";
  if (status === 404) return "model_unknown";
  // 413 request_too_large: the request exceeds Anthropic's size limit; shortening it is the fix.
  if (status === 413) return "model_context_overflow";
  if (status === 429) return "model_rate_limited";
  if (status === 503 || status === 529) return "model_overloaded";
  if (status !== undefined && status >= 500) return "model_server_error";
  const byType = type === undefined ? undefined : TYPE_CODES[type];
  if (byType) return byType;
  if (status !== undefined && status >= 400) return "model_bad_request";
  // A stream `error` event of a type this adapter does not know: the provider failed.
  return "model_server_error";
}

const SUMMARIES: Readonly<Record<ModelErrorCode, string>> = {
  model_auth: "Anthropic refused the credential or account",
  model_rate_limited: "Anthropic rate-limited the request",
  model_overloaded: "Anthropic is overloaded",
  model_context_overflow: "The request does not fit the model's context",
  model_server_error: "Anthropic failed",
  model_bad_request: "Anthropic rejected the request",
  model_unknown: "Anthropic does not know the model or resource",
  model_stream_malformed: "Anthropic's stream broke its protocol",
  model_network: "The connection to Anthropic failed",
  model_unsupported: "Anthropic cannot do this",
};

/** A stream-protocol violation. */
export function malformed(message: string, apiKey: string, requestId?: string): ModelProviderError {
  return make("model_stream_malformed", message, apiKey, requestId ? { requestId } : {});
}

/** A typed error whose message can never carry the key (it is redacted if a server echoed it). */
export function make(
  code: ModelErrorCode,
  message: string,
  apiKey: string,
  options: {
    readonly cause?: unknown;
    readonly status?: number;
    readonly retryable?: boolean;
    readonly retryAfterMs?: number;
    readonly requestId?: string;
  },
): ModelProviderError {
  return new ModelProviderError(code, redact(message, apiKey), { provider: PROVIDER, ...options });
}

function requestIdOf(body: unknown): string | undefined {
  const id = (body as { request_id?: unknown } | undefined)?.request_id;
  return typeof id === "string" ? id : undefined;
}
