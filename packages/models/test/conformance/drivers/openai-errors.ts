// OpenAI's documented error answers (`{ error: { message, type, param, code } }`), which
// compatible servers and the Responses API share.
import type { ServerResponse } from "node:http";
import { sendJson } from "../../support/http-fixture.ts";
import type { ErrorKind } from "../driver.ts";

const answers: Readonly<Record<ErrorKind, { status: number; type: string; code: string | null }>> = {
  auth: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  forbidden: { status: 403, type: "request_forbidden", code: "unsupported_country_region_territory" },
  "unknown-model": { status: 404, type: "invalid_request_error", code: "model_not_found" },
  "too-long": { status: 400, type: "invalid_request_error", code: "context_length_exceeded" },
  "rate-limited": { status: 429, type: "requests", code: "rate_limit_exceeded" },
  server: { status: 500, type: "server_error", code: null },
  unavailable: { status: 503, type: "server_error", code: null },
  overloaded: { status: 529, type: "overloaded_error", code: null },
};

/** Writes OpenAI's answer for `kind`, with an `x-request-id` as OpenAI sends. */
export function sendOpenAiError(
  response: ServerResponse,
  kind: ErrorKind,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const { status, type, code } = answers[kind];
  sendJson(
    response,
    status,
    { error: { message, type, param: null, code } },
    { "x-request-id": "req_conformance", ...headers },
  );
}
