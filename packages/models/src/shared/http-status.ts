// What an HTTP error status means, per the adapter contract (docs/adding-a-model-adapter.md,
// "Errors"), when nothing more specific in the answer says otherwise.
import type { ModelErrorCode } from "@castellan/harness";

/**
 * The code of an HTTP error status: 401/403 `model_auth`, 429 `model_rate_limited`, 503/529
 * `model_overloaded`, 408 `model_network`, other 5xx `model_server_error`, anything else
 * `model_bad_request`. Adapters check their provider's more specific signals (context-length
 * codes, unknown models) first.
 */
export function codeFromStatus(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return "model_auth";
  if (status === 429) return "model_rate_limited";
  if (status === 503 || status === 529) return "model_overloaded";
  if (status === 408) return "model_network";
  if (status >= 500) return "model_server_error";
  return "model_bad_request";
}
