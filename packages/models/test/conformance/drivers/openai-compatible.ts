// A server speaking OpenAI's Chat Completions API (drivers/chat-completions.ts), answering
// failures with OpenAI's error bodies.
import { bind } from "../bindings.ts";
import type { ConformanceDriver } from "../driver.ts";
import { KEY } from "../support/key.ts";
import { chatCompletionsWire } from "./chat-completions.ts";
import { sendOpenAiError } from "./openai-errors.ts";

export const openaiCompatibleDriver: ConformanceDriver = {
  name: "openai-compatible",
  provider: "openai-compatible",
  bind: (url, options) => bind("openai-compatible", url, KEY, options),
  isInference: (request) => request.method === "POST" && request.path === "/v1/chat/completions",
  ...chatCompletionsWire,
  sendError: sendOpenAiError,
};
