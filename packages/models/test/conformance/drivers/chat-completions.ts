// Chat Completions on the wire, as openai-compatible servers and OpenRouter stream it: `data:`
// chunks in the documented `chat.completion.chunk` shape, usage before `data: [DONE]`, and
// OpenRouter-style reasoning_details (openai-compatible/chat-fixture.ts, reasoning-fixture.ts).
import { chunk, done, textAnswer, toolCallAnswer } from "../../openai-compatible/chat-fixture.ts";
import { claudeReasoning, reasoningThen } from "../../openai-compatible/reasoning-fixture.ts";
import type { SseEvent } from "../../support/http-fixture.ts";
import type { ConformanceDriver, WireUsage } from "../driver.ts";

type ChatWire = Pick<
  ConformanceDriver,
  "text" | "toolCall" | "withProviderBlock" | "partial" | "brokenEvent" | "toolResult"
>;

function usageChunk(usage: WireUsage): SseEvent {
  return {
    data: {
      ...chunk({}),
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
      },
    },
  };
}

type ChatMessage = { role: string; content: unknown; tool_call_id?: string };

export const chatCompletionsWire: ChatWire = {
  text(pieces, usage) {
    if (!usage) return textAnswer(pieces, [12, 3]);
    const events = textAnswer(pieces);
    // The usage chunk is the last before [DONE].
    return [...events.slice(0, -2), usageChunk(usage), done];
  },
  toolCall: (call) => toolCallAnswer([call]),
  withProviderBlock: (marker, text) =>
    reasoningThen(claudeReasoning(["Noting the project."], marker), textAnswer([text])),
  partial: (text) => [{ data: chunk({ role: "assistant", content: "" }) }, { data: chunk({ content: text }) }],
  brokenEvent: () => ({ data: "{not json" }),
  toolResult(body, callId) {
    const messages = (body as { messages?: ChatMessage[] }).messages ?? [];
    const reply = messages.findIndex((message) => message.role === "tool" && message.tool_call_id === callId);
    if (reply === -1) return undefined;
    // The reply group's images follow it in one user message, each call's labelled with its id.
    const images: string[] = [];
    const after = messages.slice(reply + 1).find((message) => message.role !== "tool");
    let labelled = false;
    for (const part of Array.isArray(after?.content) ? (after.content as Record<string, unknown>[]) : []) {
      if (part.type === "text") labelled = String(part.text).includes(callId);
      else if (part.type === "image_url" && labelled) {
        images.push(String((part.image_url as { url: string }).url).replace(/^data:[^,]*,/, ""));
      }
    }
    return { text: String(messages[reply]?.content), images };
  },
};
