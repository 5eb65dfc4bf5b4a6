// Failures of an AI SDK model call → ModelProviderError, classified from structured fields
// only: the HTTP status and the provider's error type or code (error-table.ts), `isRetryable`,
// the response headers, and the AI SDK's error names. Never from message text.
//
// The original error is not attached as `cause`: an APICallError carries the request body, the
// URL and the raw response body, any of which may echo a credential the wrapped provider holds
// (and this adapter never sees, so it cannot redact it).
import { type ModelErrorCode, ModelProviderError } from "@castellan/harness";
import { errorCode, isFinal } from "../shared/error-table.js";
import { retryAfterMs } from "../shared/retry-after.js";
import { aiSdkErrors } from "./error-table.js";

/** The `provider` of every error this adapter raises. */
export const ERROR_PROVIDER = "ai-sdk";

/** Where the failure surfaced. */
export type FailureSite =
  /** `doStream` threw or rejected: the request was refused before any stream. */
  | "request"
  /** An `error` part in the stream. */
  | "stream"
  /** Reading the stream failed (the connection dropped). */
  | "read";

/** AI SDK error names (the `name` of its AISDKError classes) with a fixed meaning. */
const SDK_ERRORS: Readonly<Record<string, ModelErrorCode>> = {
  AI_JSONParseError: "model_stream_malformed",
  AI_TypeValidationError: "model_stream_malformed",
  AI_InvalidResponseDataError: "model_stream_malformed",
  AI_EmptyResponseBodyError: "model_stream_malformed",
  AI_UnsupportedFunctionalityError: "model_unsupported",
  AI_InvalidPromptError: "model_bad_request",
  AI_InvalidArgumentError: "model_bad_request",
  AI_LoadSettingError: "model_bad_request",
  AI_LoadAPIKeyError: "model_auth",
  AI_NoSuchModelError: "model_unknown",
};

/** The structured facts of an error, wherever the SDK or provider put them. */
interface Facts {
  readonly status: number | undefined;
  readonly retryable: boolean | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly providerType: string | undefined;
  readonly name: string | undefined;
  readonly message: string | undefined;
}

/** Classifies any failure of a call to `specifier`. */
export function classifyFailure(error: unknown, site: FailureSite, specifier: string): ModelProviderError {
  if (error instanceof ModelProviderError) return error;
  const facts = factsOf(error);
  const code = codeOf(facts, site);
  const retryAfter = retryAfterMs(facts.headers);
  const requestId = facts.headers["x-request-id"] ?? facts.headers["request-id"];
  // The SDK's own verdict on retrying is kept, except that a refused credential or an
  // exhausted quota never is.
  const final = code === "model_auth" || isFinal(aiSdkErrors, { types: [facts.providerType] });
  const retryable = final ? false : (facts.retryable ?? defaultRetryable(code));
  return new ModelProviderError(code, messageOf(code, facts, specifier, requestId), {
    provider: ERROR_PROVIDER,
    ...(facts.status === undefined ? {} : { status: facts.status }),
    retryable,
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    ...(requestId === undefined ? {} : { requestId }),
  });
}

function codeOf(facts: Facts, site: FailureSite): ModelErrorCode {
  const byTable = errorCode(aiSdkErrors, { status: facts.status, types: [facts.providerType] });
  if (byTable !== undefined) return byTable;
  const bySdk = facts.name === undefined ? undefined : SDK_ERRORS[facts.name];
  if (bySdk !== undefined) return bySdk;
  // An APICallError without a status is the SDK's "could not connect"; a failed read is a drop.
  if (site === "read" || facts.retryable === true) return "model_network";
  return "model_server_error";
}

function defaultRetryable(code: ModelErrorCode): boolean | undefined {
  // Unknown failures are not retried blindly; the listed codes keep ModelProviderError's defaults.
  return code === "model_server_error" ? false : undefined;
}

const LABELS: Readonly<Record<ModelErrorCode, string>> = {
  model_auth: "refused the credential",
  model_rate_limited: "is rate limiting requests",
  model_overloaded: "is overloaded",
  model_context_overflow: "says the request does not fit the model's context window",
  model_server_error: "failed",
  model_bad_request: "rejected the request",
  model_unknown: "does not know the model",
  model_stream_malformed: "sent a malformed stream",
  model_network: "could not be reached or the connection dropped",
  model_unsupported: "does not support what the request asks for",
};

function messageOf(code: ModelErrorCode, facts: Facts, specifier: string, requestId: string | undefined): string {
  const details = [
    facts.status === undefined ? undefined : `HTTP ${facts.status}`,
    facts.providerType,
    requestId === undefined ? undefined : `request ${requestId}`,
  ].filter((detail) => detail !== undefined);
  let message = `${specifier} ${LABELS[code]}${details.length > 0 ? ` (${details.join(", ")})` : ""}.`;
  // A provider's explanation helps with a rejected request; after a refused credential it may
  // quote the key, so it is left out there.
  if (code !== "model_auth" && facts.message) message += ` ${clip(facts.message)}`;
  return message;
}

function factsOf(error: unknown): Facts {
  const record = asRecord(error) ?? {};
  const data = asRecord(record.data);
  // Providers nest their error object: { error: { type, code } } (OpenAI, Anthropic) or put it at the top.
  const nested = asRecord(data?.error) ?? data ?? asRecord(record.error) ?? record;
  const status = integer(record.statusCode) ?? integer(record.status) ?? integer(nested.status);
  return {
    status: status !== undefined && status >= 400 && status <= 599 ? status : undefined,
    retryable: typeof record.isRetryable === "boolean" ? record.isRetryable : undefined,
    headers: headersOf(record.responseHeaders),
    providerType:
      identifier(nested.code) ?? identifier(nested.type) ?? identifier(record.code) ?? identifier(record.type),
    name: typeof record.name === "string" ? record.name : undefined,
    message:
      typeof error === "string"
        ? error
        : typeof nested.message === "string"
          ? nested.message
          : typeof record.message === "string"
            ? record.message
            : undefined,
  };
}

function headersOf(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  const record = asRecord(value);
  if (record)
    for (const [key, item] of Object.entries(record)) if (typeof item === "string") headers[key.toLowerCase()] = item;
  return headers;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
}

function integer(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}

/** A short identifier-like string (an error type or code), never free text. */
function identifier(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : undefined;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
