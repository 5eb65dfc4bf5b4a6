// Classifies every failure of a Responses call into a ModelProviderError at the boundary: from
// HTTP status codes and the provider's error codes, never from message text.
import { errorMessage, type ModelErrorCode, ModelProviderError, type Redactor } from "@castellan/harness";
import type { APIError } from "openai";
import { openaiSdk } from "../openai-compatible/sdk.js";
import { errorCode, isFinal } from "../shared/error-table.js";
import { malformed } from "../shared/malformed.js";
import { retryAfterMs } from "../shared/retry-after.js";
import { responsesErrors } from "./error-table.js";

/** The adapter name on every error it raises. */
export const PROVIDER = "codex";

/** The error of a `response.failed` or `error` stream event. */
export function responseError(
  code: unknown,
  message: unknown,
  redact: Redactor,
  requestId: string | undefined,
): ModelProviderError {
  const providerCode = typeof code === "string" ? code : undefined;
  const facts = { types: [providerCode] };
  const detail = typeof message === "string" && message ? `: ${redact.scrub(message)}` : ".";
  return new ModelProviderError(
    errorCode(responsesErrors, facts) ?? "model_server_error",
    `The Responses stream reported a failure${providerCode ? ` (${providerCode})` : ""}${detail}`,
    {
      provider: PROVIDER,
      ...(requestId ? { requestId } : {}),
      ...(isFinal(responsesErrors, facts) ? { retryable: false } : {}),
    },
  );
}

/** An HTTP error answer, classified by its status and the body's code (error-table.ts). */
function httpError(error: APIError & { status: number }, redact: Redactor): ModelProviderError {
  const { status } = error;
  const providerCode = typeof error.code === "string" ? error.code : undefined;
  const facts = { status, types: [providerCode] };
  const code: ModelErrorCode = errorCode(responsesErrors, facts) ?? "model_bad_request";
  const body = error.error as { message?: unknown } | undefined;
  const detail = typeof body?.message === "string" && body.message ? `: ${redact.scrub(body.message)}` : ".";
  const what =
    code === "model_auth"
      ? "The credential was refused"
      : code === "model_rate_limited"
        ? "The provider is rate limiting this credential"
        : "The Responses request failed";
  const wait = retryAfterMs(error.headers);
  return new ModelProviderError(code, `${what} (HTTP ${status}${providerCode ? ` ${providerCode}` : ""})${detail}`, {
    provider: PROVIDER,
    status,
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    ...(error.requestID ? { requestId: error.requestID } : {}),
    ...(isFinal(responsesErrors, facts) ? { retryable: false } : {}),
  });
}

/**
 * Any failure of a call, before or during its stream. The SDK's own error objects are not kept
 * as causes: they hold the raw server answer, which this error already summarizes (redacted).
 */
export function classifyError(error: unknown, redact: Redactor, requestId: string | undefined): ModelProviderError {
  // Whatever the error holds (its fields, a kept cause) is scrubbed too, not the message alone.
  return redact.scrubError(classified(error, redact, requestId));
}

function classified(error: unknown, redact: Redactor, requestId: string | undefined): ModelProviderError {
  if (error instanceof ModelProviderError) return error;
  // The SDK threw it, so it is loaded; before that no SDK error can exist.
  const sdk = openaiSdk.loaded();
  if (sdk !== undefined && error instanceof sdk.APIConnectionError) {
    return new ModelProviderError(
      "model_network",
      `The connection to the Responses API failed: ${redact.scrub(error.message)}`,
      {
        provider: PROVIDER,
        ...(requestId ? { requestId } : {}),
      },
    );
  }
  if (sdk !== undefined && error instanceof sdk.APIError) {
    if (typeof error.status === "number") return httpError(error as APIError & { status: number }, redact);
    // The SDK raises an `event: error` stream event (or a `data` carrying `error`) as a status-less APIError.
    const body = error.error as { code?: unknown; message?: unknown } | undefined;
    return responseError(error.code ?? body?.code, body?.message, redact, requestId ?? error.requestID ?? undefined);
  }
  // The SDK reports unparsable event data as a SyntaxError.
  if (error instanceof SyntaxError) {
    return malformed(PROVIDER, "The Responses stream sent an event that is not valid JSON.", { requestId });
  }
  // Anything else while reading is the transport failing, e.g. undici's "terminated" on a reset.
  const message = errorMessage(error);
  return new ModelProviderError("model_network", `The Responses stream broke off: ${redact.scrub(message)}`, {
    provider: PROVIDER,
    ...(requestId ? { requestId } : {}),
    cause: error,
  });
}
