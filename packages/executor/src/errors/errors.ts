import { CastellanError } from "@castellan/harness";

/** A server setting that is missing or malformed; the bin exits 2 with it. Names the setting, never its value. */
export class ExecutorConfigError extends CastellanError {
  /** The option or environment variable at fault. */
  readonly setting: string;

  constructor(setting: string, message: string, options?: { cause?: unknown }) {
    super("executor_config_invalid", message, options);
    this.setting = setting;
  }
}

/**
 * The wire code of each executor error code, one to one: what an HTTP error body's
 * `error.code` says (docs/errors.md lists both).
 */
export const executorWireCodes = Object.freeze({
  executor_config_invalid: "invalid-config",
  executor_forbidden_host: "forbidden-host",
  executor_forbidden_origin: "forbidden-origin",
  executor_unauthorized: "unauthorized",
  executor_method_not_allowed: "method-not-allowed",
  executor_route_not_found: "route-not-found",
  executor_unsupported_media_type: "unsupported-media-type",
  executor_body_too_large: "body-too-large",
  executor_invalid_body: "invalid-body",
  executor_unknown_fields: "unknown-fields",
  executor_unsupported_field: "unsupported-field",
  executor_unsupported_kind: "unsupported-kind",
  executor_invalid_job_id: "invalid-job-id",
  executor_job_not_found: "job-not-found",
  executor_job_conflict: "job-conflict",
  executor_queue_full: "queue-full",
  executor_shutting_down: "shutting-down",
} as const);

/** An executor error code (snake_case, in `CastellanErrorCode`). */
export type ExecutorErrorCode = keyof typeof executorWireCodes;

/** The kebab-case code an HTTP error body carries. */
export type ExecutorWireCode = (typeof executorWireCodes)[ExecutorErrorCode];

/** What the HTTP status of each request error is. */
const statuses: Readonly<Record<Exclude<ExecutorErrorCode, "executor_config_invalid">, number>> = {
  executor_forbidden_host: 403,
  executor_forbidden_origin: 403,
  executor_unauthorized: 401,
  executor_method_not_allowed: 405,
  executor_route_not_found: 404,
  executor_unsupported_media_type: 415,
  executor_body_too_large: 413,
  executor_invalid_body: 400,
  executor_unknown_fields: 400,
  executor_unsupported_field: 400,
  executor_unsupported_kind: 400,
  executor_invalid_job_id: 400,
  executor_job_not_found: 404,
  executor_job_conflict: 409,
  executor_queue_full: 503,
  executor_shutting_down: 503,
};

/** One field a request error points at: its path in the body, and what is wrong (never the value). */
export interface ExecutorErrorField {
  readonly path: string;
  readonly message: string;
}

/** A refused request: its HTTP status, and a message that never echoes a submitted value. */
export class ExecutorRequestError extends CastellanError {
  readonly status: number;
  readonly wireCode: ExecutorWireCode;
  readonly fields: readonly ExecutorErrorField[] | undefined;

  constructor(
    code: Exclude<ExecutorErrorCode, "executor_config_invalid">,
    message: string,
    fields?: readonly ExecutorErrorField[],
  ) {
    super(code, message);
    this.status = statuses[code];
    this.wireCode = executorWireCodes[code];
    this.fields = fields && fields.length > 0 ? Object.freeze([...fields]) : undefined;
  }
}
