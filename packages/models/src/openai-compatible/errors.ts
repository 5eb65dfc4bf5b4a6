// Classifies failures at the boundary where they happen: HTTP answers by status code and the
// provider's error code/type (error-table.ts), broken connections as network errors. Messages from the provider
// are kept (they say what to fix) but shortened and scrubbed of the credential.
import { createRedactor, type ModelErrorCode, ModelProviderError } from "@castellan/harness";
import { abortError } from "../shared/abort.js";
import { type ErrorFacts, errorCode, isFinal } from "../shared/error-table.js";
import { malformed } from "../shared/malformed.js";
import { retryAfterMs } from "../shared/retry-after.js";
import { chatCompletionsErrors } from "./error-table.js";
import { openaiSdk } from "./sdk.js";

/** Who raised an error and what must never appear in it. */
export interface ErrorContext {
  /** The adapter's name, e.g. `openai-compatible`. */
  readonly provider: string;
  /** How messages name the service, e.g. `OpenRouter` or `the model server at localhost:8000`. */
  readonly label: string;
  /** The credential, scrubbed from every message taken from the provider. */
  readonly secret: string | undefined;
}

/** An HTTP error answer: its status, headers and the body's `error` object, if any. */
export interface HttpFailure {
  readonly status: number;
  readonly headers: Headers | undefined;
  readonly error: unknown;
}

const longestProviderMessage = 300;

/** Redacts the secret (the harness's one redactor: every occurrence, any length), then shortens the text. */
export function scrub(text: string, secret: string | undefined): string {
  const clean = createRedactor([secret]).scrub(text);
  return clean.length > longestProviderMessage ? `${clean.slice(0, longestProviderMessage)}…` : clean;
}

/** `error` scrubbed of the secret in place: its fields and its cause chain, not only the message. */
function scrubbed<Thrown>(context: ErrorContext, error: Thrown): Thrown {
  return createRedactor([context.secret]).scrubError(error);
}

function field(error: unknown, name: "code" | "type" | "message"): unknown {
  return error !== null && typeof error === "object" ? (error as Record<string, unknown>)[name] : undefined;
}

function describe(context: ErrorContext, error: unknown): string {
  const message = field(error, "message");
  return typeof message === "string" && message.length > 0 ? `: ${scrub(message, context.secret)}` : ".";
}

/** The facts of an error body: its status, and its `code` before its `type`. */
function factsOf(status: number | undefined, error: unknown): ErrorFacts {
  return { status, types: [field(error, "code"), field(error, "type")] };
}

const advice: Partial<Record<ModelErrorCode, string>> = {
  model_auth: "check the API key",
  model_rate_limited: "slow down or retry later",
  model_overloaded: "retry later",
  model_context_overflow: "compact or shorten the conversation",
  model_unknown: "check the model id",
};

/** The error for an HTTP error answer. */
export function errorFromStatus(context: ErrorContext, failure: HttpFailure): ModelProviderError {
  const { status, headers, error } = failure;
  const facts = factsOf(status, error);
  const code = errorCode(chatCompletionsErrors, facts) ?? "model_bad_request";
  const hint = advice[code];
  const providerCode = field(error, "code") ?? field(error, "type");
  const tag = typeof providerCode === "string" && providerCode ? ` ${providerCode}` : "";
  const requestId = headers?.get("x-request-id") ?? headers?.get("x-generation-id") ?? undefined;
  // Honoured for every retryable answer: servers send it with 503s and other 5xx too.
  const after = retryAfterMs(headers);
  return scrubbed(
    context,
    new ModelProviderError(
      code,
      `${sentence(context.label)} answered HTTP ${status}${tag}${describe(context, error)}${hint ? ` (${hint})` : ""}`,
      {
        provider: context.provider,
        status,
        ...(isFinal(chatCompletionsErrors, facts) ? { retryable: false } : {}),
        ...(after === undefined ? {} : { retryAfterMs: after }),
        ...(requestId ? { requestId } : {}),
      },
    ),
  );
}

/**
 * The error for a `data: {"error": {...}}` event inside a stream. OpenRouter puts the HTTP
 * status it would have answered in a numeric `code`; OpenAI-style servers use string codes.
 */
export function errorFromStreamPayload(context: ErrorContext, error: unknown): ModelProviderError {
  const code = field(error, "code");
  if (typeof code === "number" && Number.isInteger(code) && code >= 400) {
    return errorFromStatus(context, { status: code, headers: undefined, error });
  }
  const facts = factsOf(undefined, error);
  return scrubbed(
    context,
    new ModelProviderError(
      // An error the table does not know: the server failed.
      errorCode(chatCompletionsErrors, facts) ?? "model_server_error",
      `${sentence(context.label)} reported an error in the stream${describe(context, error)}`,
      {
        provider: context.provider,
        ...(isFinal(chatCompletionsErrors, facts) ? { retryable: false } : {}),
      },
    ),
  );
}

/** The error for anything the SDK threw while sending the request and reading the answer's headers. */
export function errorFromRequest(context: ErrorContext, thrown: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal);
  if (thrown instanceof ModelProviderError) return thrown;
  // The SDK threw it, so it is loaded; before that no SDK error can exist.
  const sdk = openaiSdk.loaded();
  const apiError = sdk !== undefined && thrown instanceof sdk.APIError ? thrown : undefined;
  if (apiError && typeof apiError.status === "number") {
    return errorFromStatus(context, { status: apiError.status, headers: apiError.headers, error: apiError.error });
  }
  const timedOut = sdk !== undefined && thrown instanceof sdk.APIConnectionTimeoutError;
  // Connection failures (refused, reset, DNS, TLS) carry the platform's error as their cause.
  const cause = apiError ? (apiError.cause ?? apiError) : thrown;
  return scrubbed(
    context,
    new ModelProviderError(
      "model_network",
      `Could not reach ${context.label}${timedOut ? ": the request timed out" : ""}${causeText(cause, context)}.`,
      { provider: context.provider, cause },
    ),
  );
}

/** The error for a connection that broke while the answer was being read. */
export function errorFromDisconnect(context: ErrorContext, thrown: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal);
  return scrubbed(
    context,
    new ModelProviderError(
      "model_network",
      `The connection to ${context.label} broke before the answer was complete${causeText(thrown, context)}.`,
      { provider: context.provider, cause: thrown },
    ),
  );
}

/** The label at the start of a sentence. */
export function sentence(label: string): string {
  return label.charAt(0).toUpperCase() + label.slice(1);
}

function causeText(cause: unknown, context: ErrorContext): string {
  const inner = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : undefined;
  return inner ? ` (${scrub(inner, context.secret)})` : "";
}

/** A stream that broke its protocol: `what` the server sent, in words. */
export function malformedAnswer(context: ErrorContext, what: string): ModelProviderError {
  return malformed(context.provider, `${sentence(context.label)} sent ${what}.`);
}
