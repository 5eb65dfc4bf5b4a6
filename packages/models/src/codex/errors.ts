// Classifies every failure of a Responses call into a ModelProviderError at the boundary: from
// HTTP status codes and the provider's error codes, never from message text.
import { type ModelErrorCode, ModelProviderError } from "@castellan/harness";
import { APIConnectionError, APIError } from "openai";
import { codeFromStatus } from "../shared/http-status.js";
import type { Redact } from "../shared/redact.js";
import { retryAfterMs } from "../shared/retry-after.js";

/** The adapter name on every error it raises. */
export const PROVIDER = "codex";

/** A stream that broke its protocol. */
export function malformed(message: string, requestId?: string): ModelProviderError {
  return new ModelProviderError("model_stream_malformed", message, {
    provider: PROVIDER,
    ...(requestId ? { requestId } : {}),
  });
}

// Error codes of a failed response (or an `error` stream event) and what they mean. Anything
// not named here, including no code at all, is taken as a server-side failure.
const contextOverflowCodes = new Set(["context_length_exceeded"]);
const rateLimitCodes = new Set(["rate_limit_exceeded"]);
// Out of quota or plan usage: asking again soon does not help.
const quotaCodes = new Set(["insufficient_quota", "usage_limit_reached", "usage_not_included"]);
const badRequestCodes = new Set([
  "invalid_prompt",
  "invalid_request_error",
  "data_residency_mismatch",
  "bio_policy",
  "misalignment_policy_violation",
  "invalid_image",
  "invalid_image_format",
  "invalid_base64_image",
  "invalid_image_url",
  "image_too_large",
  "image_too_small",
  "image_parse_error",
  "image_content_policy_violation",
  "invalid_image_mode",
  "image_file_too_large",
  "unsupported_image_media_type",
  "empty_image_file",
  "failed_to_download_image",
  "image_file_not_found",
]);
const unknownModelCodes = new Set(["model_not_found"]);

/** Classifies a failed response, an `error` stream event or an HTTP error body by its code alone. */
function codeFromProviderCode(code: string | undefined): ModelErrorCode | undefined {
  if (code === undefined) return undefined;
  if (contextOverflowCodes.has(code)) return "model_context_overflow";
  if (rateLimitCodes.has(code) || quotaCodes.has(code)) return "model_rate_limited";
  if (unknownModelCodes.has(code)) return "model_unknown";
  if (badRequestCodes.has(code)) return "model_bad_request";
  return undefined;
}

/** The error of a `response.failed` or `error` stream event. */
export function responseError(
  code: unknown,
  message: unknown,
  redact: Redact,
  requestId: string | undefined,
): ModelProviderError {
  const providerCode = typeof code === "string" ? code : undefined;
  const errorCode = codeFromProviderCode(providerCode) ?? "model_server_error";
  const detail = typeof message === "string" && message ? `: ${redact(message)}` : ".";
  return new ModelProviderError(
    errorCode,
    `The Responses stream reported a failure${providerCode ? ` (${providerCode})` : ""}${detail}`,
    {
      provider: PROVIDER,
      ...(requestId ? { requestId } : {}),
      ...(providerCode && quotaCodes.has(providerCode) ? { retryable: false } : {}),
    },
  );
}

/** An HTTP error answer. The status decides, except where the body's code is more specific. */
function httpError(error: APIError & { status: number }, redact: Redact): ModelProviderError {
  const { status } = error;
  const providerCode = typeof error.code === "string" ? error.code : undefined;
  // 401/403 and 429 stay what their status says; a 400 or 404 may name the context or model.
  const bodyCode = status === 401 || status === 403 ? undefined : codeFromProviderCode(providerCode);
  const code: ModelErrorCode = status === 429 ? "model_rate_limited" : (bodyCode ?? codeFromStatus(status));
  const body = error.error as { message?: unknown } | undefined;
  const detail = typeof body?.message === "string" && body.message ? `: ${redact(body.message)}` : ".";
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
    ...(providerCode && quotaCodes.has(providerCode) ? { retryable: false } : {}),
  });
}

/**
 * Any failure of a call, before or during its stream. The SDK's own error objects are not kept
 * as causes: they hold the raw server answer, which this error already summarizes (redacted).
 */
export function classifyError(error: unknown, redact: Redact, requestId: string | undefined): ModelProviderError {
  if (error instanceof ModelProviderError) return error;
  if (error instanceof APIConnectionError) {
    return new ModelProviderError(
      "model_network",
      `The connection to the Responses API failed: ${redact(error.message)}`,
      {
        provider: PROVIDER,
        ...(requestId ? { requestId } : {}),
      },
    );
  }
  if (error instanceof APIError) {
    if (typeof error.status === "number") return httpError(error as APIError & { status: number }, redact);
    // The SDK raises an `event: error` stream event (or a `data` carrying `error`) as a status-less APIError.
    const body = error.error as { code?: unknown; message?: unknown } | undefined;
    return responseError(error.code ?? body?.code, body?.message, redact, requestId ?? error.requestID ?? undefined);
  }
  // The SDK reports unparsable event data as a SyntaxError.
  if (error instanceof SyntaxError) {
    return malformed(`The Responses stream sent an event that is not valid JSON.`, requestId);
  }
  // Anything else while reading is the transport failing, e.g. undici's "terminated" on a reset.
  const message = error instanceof Error ? error.message : String(error);
  return new ModelProviderError("model_network", `The Responses stream broke off: ${redact(message)}`, {
    provider: PROVIDER,
    ...(requestId ? { requestId } : {}),
    cause: error,
  });
}
