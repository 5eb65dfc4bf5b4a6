// Turns what the SDK throws into ModelProviderErrors, at the boundary where it happens.
import type { APIError } from "@anthropic-ai/sdk";
import { createRedactor, errorMessage, type ModelErrorCode, ModelProviderError } from "@castellan/harness";
import { errorCode } from "../shared/error-table.js";
import { malformed } from "../shared/malformed.js";
import { retryAfterMs } from "../shared/retry-after.js";
import { anthropicErrors, CONTEXT_LENGTH_MESSAGE } from "./error-table.js";
import { anthropicSdk } from "./sdk.js";

/** The adapter name on every error it raises. */
export const PROVIDER = "anthropic";

/** Converts anything the SDK or the stream threw into a ModelProviderError. */
export function toModelError(error: unknown, apiKey: string): ModelProviderError {
  if (error instanceof ModelProviderError) return error;
  // The SDK threw it, so it is loaded; before that no SDK error can exist.
  const sdk = anthropicSdk.loaded();
  if (sdk !== undefined && error instanceof sdk.APIUserAbortError) {
    return make("model_network", "The request to Anthropic was aborted.", apiKey, { cause: error, retryable: false });
  }
  if (sdk !== undefined && error instanceof sdk.APIConnectionError) {
    return make("model_network", `Could not reach Anthropic: ${error.message}`, apiKey, { cause: error });
  }
  if (sdk !== undefined && error instanceof sdk.APIError) return fromApiError(error, apiKey);
  if (error instanceof SyntaxError) {
    // The parser's message may quote the event, so only the fact is reported.
    return malformed(PROVIDER, "Anthropic sent an event that is not JSON.");
  }
  // Anything else was thrown while reading the response body: the connection failed.
  const message = errorMessage(error);
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
  // Honoured for every answer that names a wait, as by every adapter: servers send it with 5xx too.
  const wait = retryAfterMs(error.headers);
  // The SDK's error is not kept as the cause: it holds the server's raw answer, which may echo
  // the key, and this error already says what it said (redacted).
  return make(code, summary, apiKey, {
    ...(status !== undefined ? { status } : {}),
    ...(requestId ? { requestId } : {}),
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
  });
}

/** The code of an error status and Anthropic error type (see error-table.ts). */
export function classify(status: number | undefined, type: string | undefined, message: string | null): ModelErrorCode {
  const invalidRequest = type === undefined || type === "invalid_request_error";
  if ((status === 400 || (status === undefined && type === "invalid_request_error")) && invalidRequest) {
    if (message && CONTEXT_LENGTH_MESSAGE.test(message)) return "model_context_overflow";
  }
  // A stream `error` event of a type this adapter does not know: the provider failed.
  return errorCode(anthropicErrors, { status, types: [type] }) ?? "model_server_error";
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

/** A typed error that can never carry the key: its message, fields and kept cause are scrubbed if a server echoed it. */
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
  return createRedactor([apiKey]).scrubError(new ModelProviderError(code, message, { provider: PROVIDER, ...options }));
}

function requestIdOf(body: unknown): string | undefined {
  const id = (body as { request_id?: unknown } | undefined)?.request_id;
  return typeof id === "string" ? id : undefined;
}
