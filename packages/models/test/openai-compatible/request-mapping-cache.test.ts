// The request body is mapped per message object and the mapped form reused on later turns: the
// body stays exactly what a fresh mapping gives, old messages are not mapped again, and a message
// replaced by a new object (as a beforeModel hook does) is.
import type { Message, ModelRequest } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { reasoningBlock } from "../../src/openai-compatible/reasoning-details.js";
import { type ChatRequestOptions, chatRequestBody } from "../../src/openai-compatible/request-mapping.js";
import { modelRequest } from "../support/request.js";

const options: ChatRequestOptions = { model: "fixture-model", maxOutputTokens: 512, maxTokensField: "max_tokens" };
const png = { type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };

/** A long conversation with everything that spans messages: tool reply groups with images, reasoning details. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "Start." }, png] }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: `Turn ${turn}.` },
        reasoningBlock([{ type: "reasoning.text", text: `thinking ${turn}`, signature: `sig${turn}`, index: 0 }]),
      ],
      toolCalls: [
        { id: `a${turn}`, name: "read", input: { turn } },
        { id: `b${turn}`, name: "shot", input: {} },
      ],
    });
    messages.push({
      role: "tool",
      toolCallId: `a${turn}`,
      toolName: "read",
      content: [{ type: "text", text: `read ${turn}` }],
      isError: false,
    });
    messages.push({
      role: "tool",
      toolCallId: `b${turn}`,
      toolName: "shot",
      content: turn % 3 === 0 ? [png, { type: "text", text: "a shot" }] : [png],
      isError: turn % 5 === 0,
    });
    if (turn % 7 === 0) messages.push({ role: "user", content: [{ type: "text", text: `Go on ${turn}.` }] });
  }
  return messages;
}

function request(messages: readonly Message[]): ModelRequest {
  return modelRequest({ system: "Be brief.", context: "Today is Monday.", messages });
}

describe("openai-compatible request mapping across turns", () => {
  it("maps a long conversation twice to the same body as a fresh mapping, without mapping old messages again", () => {
    const messages = conversation(200);
    const first = chatRequestBody(request(messages), options);
    const second = chatRequestBody(request(messages), options);
    // (a) Byte-identical, and identical to mapping new copies of every message (no cache involved).
    const fresh = chatRequestBody(request(structuredClone(messages)), options);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(JSON.stringify(second)).toBe(JSON.stringify(fresh));
    // The image groups follow their tool replies and do not grow from one request to the next.
    expect(second.messages.filter((message) => message.role === "user")).toHaveLength(1 + 200 + 29 + 1);
    // (b) Every conversation message is the very object mapped the first time: none was mapped again.
    // (The system prompt, the context and the image groups are made per request.)
    const conversationMessages = (body: typeof first) =>
      body.messages.filter((message, index) => message.role === "assistant" || message.role === "tool" || index === 1);
    const again = conversationMessages(second);
    expect(again).toHaveLength(1 + 200 * 3);
    conversationMessages(first).forEach((message, index) => {
      expect(again[index]).toBe(message);
    });
    expect(conversationMessages(fresh)[1]).not.toBe(conversationMessages(first)[1]);
  });

  it("maps a message again when it is replaced by a new object with different content", () => {
    const messages = conversation(20);
    const first = chatRequestBody(request(messages), options);
    const index = messages.findIndex((message) => message.role === "tool" && message.toolCallId === "b3");
    const original = messages[index];
    if (original?.role !== "tool") throw new Error("no tool reply b3");
    const edited: Message[] = messages.with(index, { ...original, content: [{ type: "text", text: "redacted" }] });
    const second = chatRequestBody(request(edited), options);
    // (c) The new object is mapped: its text changed and its image left the group's user message.
    expect(JSON.stringify(second)).toBe(JSON.stringify(chatRequestBody(request(structuredClone(edited)), options)));
    expect(JSON.stringify(second)).not.toBe(JSON.stringify(first));
    expect(second.messages).toContainEqual({ role: "tool", tool_call_id: "b3", content: "redacted" });
    expect(JSON.stringify(second)).not.toContain("Image from tool call b3");
    expect(JSON.stringify(first)).toContain("Image from tool call b3");
    // The unchanged messages are still reused as they were.
    expect(second.messages[1]).toBe(first.messages[1]);
    // The earlier mapping of the original object is unchanged and still used for it.
    expect(JSON.stringify(chatRequestBody(request(messages), options))).toBe(JSON.stringify(first));
  });
});
