// The Responses API's errors: HTTP statuses, and the `code` of an error body, a
// `response.failed` event or an `error` event, with what each means here. A code not named
// here, or none at all, leaves the status to decide, and inside a stream means the provider failed.
import { errorTable } from "../shared/error-table.js";

/** Out of quota or plan usage: asking again soon does not help. */
const quotaCodes = ["insufficient_quota", "usage_limit_reached", "usage_not_included"] as const;

/** Codes OpenAI documents for a request it refuses as invalid (prompt, images, policy). */
const badRequestCodes = [
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
] as const;

/** The Responses API's statuses and error codes. */
export const responsesErrors = errorTable({
  statuses: {
    // A refused credential and a rate limit are what their status says, whatever the body's code.
    401: "model_auth",
    403: "model_auth",
    408: "model_network",
    429: "model_rate_limited",
    503: "model_overloaded",
    529: "model_overloaded",
  },
  types: {
    context_length_exceeded: "model_context_overflow",
    rate_limit_exceeded: "model_rate_limited",
    model_not_found: "model_unknown",
    ...Object.fromEntries(quotaCodes.map((code) => [code, "model_rate_limited" as const])),
    ...Object.fromEntries(badRequestCodes.map((code) => [code, "model_bad_request" as const])),
  },
  decisive: ["context_length_exceeded"],
  final: quotaCodes,
});
