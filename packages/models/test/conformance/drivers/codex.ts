// The codex adapter on the OpenAI Responses API (drivers/responses.ts), answering failures with
// OpenAI's error bodies.
import { bind } from "../bindings.ts";
import type { ConformanceDriver } from "../driver.ts";
import { KEY } from "../support/key.ts";
import { sendOpenAiError } from "./openai-errors.ts";
import { responsesWire } from "./responses.ts";

export const codexDriver: ConformanceDriver = {
  name: "codex",
  provider: "codex",
  bind: (url, options) => bind("codex", url, KEY, options),
  isInference: (request) => request.method === "POST" && request.path === "/responses",
  ...responsesWire,
  sendError: sendOpenAiError,
};
