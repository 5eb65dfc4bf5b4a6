// The prompt is mapped per message object and the mapped form reused on later turns: the prompt
// stays exactly what a fresh mapping gives, old messages are not mapped again, and a message
// replaced by a new object (as a beforeModel hook does) is.
import type { Message, ModelRequest } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { aiSdkBlock } from "../../src/ai-sdk/provider-blocks.js";
import { toPrompt } from "../../src/ai-sdk/request.js";
import { modelRequest } from "../support/request.js";

const png = { type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };

/** A long conversation with everything that spans or merges messages: runs of tool results, provider blocks. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "Start." }, png] }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: "assistant",
      content: [
        aiSdkBlock({ part: "reasoning", text: `thinking ${turn}`, metadata: { openai: { itemId: `r${turn}` } } }),
        { type: "text", text: `Turn ${turn}.` },
        aiSdkBlock({ part: "metadata", metadata: { openai: { itemId: `m${turn}` } } }),
        aiSdkBlock({
          part: "tool-call-metadata",
          toolCallId: `a${turn}`,
          metadata: { openai: { itemId: `c${turn}` } },
        }),
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
    // An empty message is left out, so the tool results around it form one run.
    if (turn % 4 === 0) messages.push({ role: "user", content: [{ type: "text", text: "" }] });
    if (turn % 7 === 0) messages.push({ role: "user", content: [{ type: "text", text: `Go on ${turn}.` }] });
  }
  return messages;
}

function request(messages: readonly Message[]): ModelRequest {
  return modelRequest({ system: "Be brief.", context: "Today is Monday.", messages });
}

describe("aiSdk prompt mapping across turns", () => {
  it("maps a long conversation twice to the same prompt as a fresh mapping, without mapping old messages again", () => {
    const messages = conversation(200);
    const first = toPrompt(request(messages));
    const second = toPrompt(request(messages));
    // (a) Identical, and identical to mapping new copies of every message (no cache involved).
    const fresh = toPrompt(request(structuredClone(messages)));
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(second).toEqual(fresh);
    expect(JSON.stringify(second)).toBe(JSON.stringify(fresh));
    // Each run of tool results is one tool message of two results.
    const toolMessages = second.filter((message) => message.role === "tool");
    expect(toolMessages).toHaveLength(200);
    for (const message of toolMessages) expect(message.content).toHaveLength(2);
    // (b) Every other message and every tool result part is the very object mapped the first time.
    expect(second).toHaveLength(first.length);
    first.forEach((message, index) => {
      const again = second[index];
      if (message.role === "tool" && again?.role === "tool") {
        message.content.forEach((part, partIndex) => {
          expect(again.content[partIndex]).toBe(part);
        });
      }
      // The conversation's messages are final and shared, but for its last (before this turn's
      // context), which is new each prompt when it is a run of tool results that may still grow.
      const lastOfConversation = index === first.length - 2;
      if (lastOfConversation && message.role === "tool") expect(again).not.toBe(message);
      else if (index > 0 && index < first.length - 1) expect(again).toBe(message);
    });
    // A later, longer conversation does not change what an earlier prompt holds.
    const before = JSON.stringify(first);
    toPrompt(request([...messages, ...conversation(1).slice(1)]));
    expect(JSON.stringify(first)).toBe(before);
    expect(fresh[1]).not.toBe(first[1]);
  });

  it("maps a message again when it is replaced by a new object with different content", () => {
    const messages = conversation(20);
    const first = toPrompt(request(messages));
    const index = messages.findIndex((message) => message.role === "tool" && message.toolCallId === "b3");
    const original = messages[index];
    if (original?.role !== "tool") throw new Error("no tool reply b3");
    const edited: Message[] = messages.with(index, { ...original, content: [{ type: "text", text: "redacted" }] });
    const second = toPrompt(request(edited));
    // (c) The new object is mapped: its result is text now.
    expect(second).toEqual(toPrompt(request(structuredClone(edited))));
    expect(JSON.stringify(second)).toBe(JSON.stringify(toPrompt(request(structuredClone(edited)))));
    expect(second).not.toEqual(first);
    const results = second.flatMap((message) => (message.role === "tool" ? message.content : []));
    expect(results.find((part) => part.type === "tool-result" && part.toolCallId === "b3")).toEqual({
      type: "tool-result",
      toolCallId: "b3",
      toolName: "shot",
      output: { type: "text", value: "redacted" },
    });
    // The unchanged messages are still reused, and the original object still maps as before.
    expect(second[1]).toBe(first[1]);
    expect(JSON.stringify(toPrompt(request(messages)))).toBe(JSON.stringify(first));
  });
});
