// The aiSdk adapter around @ai-sdk/openai's Responses model, against the same Responses wire
// as codex (drivers/responses.ts) and OpenAI's error bodies.
import { bind } from "../bindings.ts";
import type { ConformanceDriver } from "../driver.ts";
import { KEY } from "../support/key.ts";
import { sendOpenAiError } from "./openai-errors.ts";
import { responsesWire } from "./responses.ts";

export const aiSdkDriver: ConformanceDriver = {
  name: "ai-sdk",
  provider: "ai-sdk",
  bind: (url, options) => bind("ai-sdk", url, KEY, options),
  isInference: (request) => request.method === "POST" && request.path === "/responses",
  ...responsesWire,
  sendError: sendOpenAiError,
};
