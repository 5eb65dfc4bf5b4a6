import { CastellanError } from "./errors.js";

/** What went wrong in a model call, as every adapter classifies it where it happens. */
export type ModelErrorCode =
  /** The credential was refused (HTTP 401/403). Not retryable. */
  | "model_auth"
  /** Too many requests (HTTP 429); `retryAfterMs` says when to try again, where the provider said. */
  | "model_rate_limited"
  /** The provider is overloaded (HTTP 529, or 503). Retryable later. */
  | "model_overloaded"
  /** The request does not fit the model's context window. Compact or shorten, then retry. */
  | "model_context_overflow"
  /** The provider failed (other HTTP 5xx). */
  | "model_server_error"
  /** The provider rejected the request as malformed (HTTP 400/404/422 other than the above). */
  | "model_bad_request"
  /** The model id is not known to the provider or its catalog. */
  | "model_unknown"
  /** The stream broke its protocol: bad framing, bad JSON, an unexpected event, or no terminal event. */
  | "model_stream_malformed"
  /** The connection failed or dropped before the answer was complete. */
  | "model_network"
  /** The request asks for something this adapter or model cannot do (e.g. a hosted tool it lacks). */
  | "model_unsupported";

/** Options of a ModelProviderError. */
export interface ModelProviderErrorOptions {
  /** The adapter that raised it, e.g. `anthropic`. */
  readonly provider: string;
  readonly status?: number;
  /** Whether sending the same request again may succeed. */
  readonly retryable?: boolean;
  /** How long the provider asked to wait before retrying, in milliseconds. */
  readonly retryAfterMs?: number;
  /** The provider's request id, for support. */
  readonly requestId?: string;
  readonly cause?: unknown;
}

/**
 * A model call failed. Raised by adapters with a stable code; the message never contains a
 * credential.
 */
export class ModelProviderError extends CastellanError {
  declare readonly code: ModelErrorCode;
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly requestId: string | undefined;

  constructor(code: ModelErrorCode, message: string, options: ModelProviderErrorOptions) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.provider = options.provider;
    this.status = options.status;
    this.retryable =
      options.retryable ??
      (code === "model_rate_limited" ||
        code === "model_overloaded" ||
        code === "model_server_error" ||
        code === "model_network");
    this.retryAfterMs = options.retryAfterMs;
    this.requestId = options.requestId;
  }
}

/** True for a ModelProviderError, optionally of one code. */
export function isModelProviderError(error: unknown, code?: ModelErrorCode): error is ModelProviderError {
  return error instanceof ModelProviderError && (code === undefined || error.code === code);
}
