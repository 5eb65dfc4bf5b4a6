// OpenRouter: Chat Completions on the wire (drivers/chat-completions.ts), its public catalog at
// GET /models, and its error bodies, whose `code` is the HTTP status as a number.

import { catalog } from "../../openrouter/catalog-fixture.ts";
import { sendJson } from "../../support/http-fixture.ts";
import { bind } from "../bindings.ts";
import type { ConformanceDriver, ErrorKind } from "../driver.ts";
import { KEY } from "../support/key.ts";
import { chatCompletionsWire } from "./chat-completions.ts";

const statuses: Readonly<Record<ErrorKind, number>> = {
  auth: 401,
  // OpenRouter's answer when moderation refuses the input.
  forbidden: 403,
  "unknown-model": 404,
  "too-long": 400,
  "rate-limited": 429,
  server: 500,
  unavailable: 503,
  overloaded: 529,
};

export const openrouterDriver: ConformanceDriver = {
  name: "openrouter",
  provider: "openrouter",
  bind: (url, options) => bind("openrouter", url, KEY, options),
  isInference: (request) => request.method === "POST" && request.path === "/api/v1/chat/completions",
  serveOther(request, response) {
    if (request.method === "GET" && request.path === "/api/v1/models") sendJson(response, 200, catalog);
    else sendJson(response, 404, { error: { code: 404, message: "Not found" } });
  },
  ...chatCompletionsWire,
  sendError(response, kind, message, headers) {
    const text =
      kind === "too-long"
        ? `This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens. (${message})`
        : message;
    sendJson(response, statuses[kind], { error: { code: statuses[kind], message: text } }, { ...headers });
  },
};
