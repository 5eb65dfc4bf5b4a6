// Errors of servers speaking OpenAI's Chat Completions API: the HTTP statuses, and the `code`
// or `type` of an error body (OpenAI's documented codes, which compatible servers copy), with
// what each means here. OpenRouter answers through the same table.
import { errorTable } from "../shared/error-table.js";

/** OpenAI-style statuses and error codes. */
export const chatCompletionsErrors = errorTable({
  statuses: {
    401: "model_auth",
    403: "model_auth",
    408: "model_network",
    429: "model_rate_limited",
    503: "model_overloaded",
    529: "model_overloaded",
  },
  types: {
    // OpenAI's code for a prompt that does not fit; compatible servers copy it.
    context_length_exceeded: "model_context_overflow",
    model_not_found: "model_unknown",
    invalid_api_key: "model_auth",
    rate_limit_exceeded: "model_rate_limited",
    insufficient_quota: "model_rate_limited",
    // What servers that proxy Anthropic-style backends put in a stream's error.
    overloaded_error: "model_overloaded",
    overloaded: "model_overloaded",
    server_error: "model_server_error",
  },
  decisive: ["context_length_exceeded"],
  // Out of credit: asking again soon does not help.
  final: ["insufficient_quota"],
});
