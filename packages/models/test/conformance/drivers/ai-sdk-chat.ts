// The aiSdk adapter around @ai-sdk/openai's Chat Completions model, against the same wire as
// openai-compatible servers (drivers/chat-completions.ts) and OpenAI's error bodies.
import { bind } from "../bindings.ts";
import type { ConformanceDriver } from "../driver.ts";
import { KEY } from "../support/key.ts";
import { chatCompletionsWire } from "./chat-completions.ts";
import { sendOpenAiError } from "./openai-errors.ts";

export const aiSdkChatDriver: ConformanceDriver = {
  name: "ai-sdk-chat",
  provider: "ai-sdk",
  bind: (url, options) => bind("ai-sdk-chat", url, KEY, options),
  isInference: (request) => request.method === "POST" && request.path === "/chat/completions",
  ...chatCompletionsWire,
  sendError: sendOpenAiError,
};
