// Anthropic's errors (https://docs.anthropic.com/en/api/errors): the HTTP statuses and the
// `error.type` of an error body or an `error` stream event, with what each means here.
import { errorTable } from "../shared/error-table.js";

/** Anthropic's statuses and error types. */
export const anthropicErrors = errorTable({
  statuses: {
    401: "model_auth",
    // The account cannot pay for the request: as final as a refused key, and fixed the same way.
    402: "model_auth",
    403: "model_auth",
    // not_found_error: on the Messages API, the model id is unknown.
    404: "model_unknown",
    // request_too_large: the request exceeds Anthropic's size limit; shortening it is the fix.
    413: "model_context_overflow",
    429: "model_rate_limited",
    503: "model_overloaded",
    529: "model_overloaded",
  },
  types: {
    authentication_error: "model_auth",
    permission_error: "model_auth",
    billing_error: "model_auth",
    rate_limit_error: "model_rate_limited",
    overloaded_error: "model_overloaded",
    api_error: "model_server_error",
    timeout_error: "model_server_error",
    not_found_error: "model_unknown",
    request_too_large: "model_context_overflow",
    invalid_request_error: "model_bad_request",
  },
});

/**
 * The one failure classified from its text. Anthropic reports a prompt longer than the context
 * window as a plain 400 `invalid_request_error` ("prompt is too long: 210000 tokens > 200000
 * maximum", or "input length and `max_tokens` exceed context limit: …"); neither the type nor
 * `error.details.error_code` tells it apart from other invalid requests. Applied only to that
 * status and type.
 */
export const CONTEXT_LENGTH_MESSAGE = /prompt is too long|exceed context limit/i;
