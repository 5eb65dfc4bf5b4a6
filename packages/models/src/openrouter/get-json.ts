// A GET of one of OpenRouter's JSON endpoints (catalog, key), with the same error
// classification as the inference path and the caller's signal on the whole exchange.
import {
  type ErrorContext,
  errorFromDisconnect,
  errorFromRequest,
  errorFromStatus,
  sentence,
} from "../openai-compatible/errors.js";
import { abortError } from "../shared/abort.js";
import { malformed } from "../shared/malformed.js";

/** Fetches `url` and parses its JSON answer; non-2xx answers and failures throw ModelProviderError. */
export async function getJson(
  url: string,
  options: { readonly context: ErrorContext; readonly signal: AbortSignal; readonly headers?: Record<string, string> },
): Promise<unknown> {
  const { context, signal } = options;
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/json", ...options.headers }, signal });
  } catch (error) {
    throw errorFromRequest(context, error, signal);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw errorFromDisconnect(context, error, signal);
  }
  if (signal.aborted) throw abortError(signal);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = body !== null && typeof body === "object" ? (body as { error?: unknown }).error : undefined;
    throw errorFromStatus(context, { status: response.status, headers: response.headers, error });
  }
  if (body === undefined) {
    throw malformed(context.provider, `${sentence(context.label)} answered ${url} with no JSON.`);
  }
  return body;
}
