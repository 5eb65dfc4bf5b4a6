// The errors an AI SDK provider passes on. The AI SDK keeps the provider's HTTP status and its
// parsed error body, so the types are the providers' own: this table joins the Anthropic,
// Chat Completions and Responses tables (each kept in its adapter's error-table.ts) rather than
// copying them, so a type means the same through the AI SDK as through the native adapter.
import { anthropicErrors } from "../anthropic/error-table.js";
import { responsesErrors } from "../codex/error-table.js";
import { chatCompletionsErrors } from "../openai-compatible/error-table.js";
import { errorTable } from "../shared/error-table.js";

/** The statuses and provider error types of any provider behind the AI SDK. */
export const aiSdkErrors = errorTable({
  statuses: {
    401: "model_auth",
    403: "model_auth",
    408: "model_network",
    // The request is larger than the provider takes (Anthropic's request_too_large); shortening it is the fix.
    413: "model_context_overflow",
    429: "model_rate_limited",
    503: "model_overloaded",
    529: "model_overloaded",
  },
  types: { ...responsesErrors.types, ...chatCompletionsErrors.types, ...anthropicErrors.types },
  // Whatever the status, these name the context or the model.
  decisive: ["context_length_exceeded", "model_not_found", "not_found_error"],
  final: [...(responsesErrors.final ?? []), ...(chatCompletionsErrors.final ?? [])],
});
