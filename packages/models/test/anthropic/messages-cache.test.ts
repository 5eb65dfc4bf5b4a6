import type { Message } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../../src/anthropic/messages.js";

/** A long agent loop: a user message, then per turn an assistant call and its result, with a nudge now and then. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "Start." }] }];
  for (let turn = 0; turn < turns; turn++) {
    const id = `toolu_${turn}`;
    messages.push({
      role: "assistant",
      content: [
        { type: "provider", provider: "anthropic", data: { type: "thinking", thinking: `t${turn}`, signature: "sig" } },
        { type: "text", text: `Turn ${turn}.` },
      ],
      toolCalls: [{ id, name: "read", input: { turn } }],
    });
    messages.push({
      role: "tool",
      toolCallId: id,
      toolName: "read",
      content: [{ type: "text", text: `result ${turn}` }],
      isError: false,
    });
    if (turn % 5 === 4) messages.push({ role: "user", content: [{ type: "text", text: `nudge ${turn}` }] });
  }
  return messages;
}

describe("anthropic message mapping cache", () => {
  it("maps each message object once and gives the same output on every call", () => {
    const messages = conversation(60);
    const first = toAnthropicMessages(messages, "now");
    const firstJson = JSON.stringify(first);
    const second = toAnthropicMessages(messages, "now");
    expect(JSON.stringify(second)).toBe(firstJson);
    // The list and its last turn (which later messages or the context may extend) are new each
    // call; earlier turns are final and shared ...
    expect(second).not.toBe(first);
    expect(second.at(-1)).not.toBe(first.at(-1));
    expect(second[0]).toBe(first[0]);
    // ... but every block made for a message is the one made the first time: not re-mapped.
    // (The context block, last, is this call's own.)
    const blocks = (turns: typeof first) => turns.flatMap((turn) => turn.content as unknown[]).slice(0, -1);
    const secondBlocks = blocks(second);
    expect(secondBlocks.length).toBeGreaterThan(200);
    for (const [at, block] of blocks(first).entries()) expect(secondBlocks[at]).toBe(block);
    // Merging (tool result + nudge + context) did not grow the cached lists, nor did a later,
    // longer conversation change what an earlier call returned.
    expect(JSON.stringify(toAnthropicMessages(messages, "now"))).toBe(firstJson);
    const longer = [...messages, { role: "user" as const, content: [{ type: "text" as const, text: "more" }] }];
    expect(JSON.stringify(toAnthropicMessages(longer, "later")).length).toBeGreaterThan(firstJson.length);
    expect(JSON.stringify(first)).toBe(firstJson);
    expect(JSON.stringify(second)).toBe(firstJson);
    expect(toAnthropicMessages(messages, "").at(-1)?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_59", content: [{ type: "text", text: "result 59" }], is_error: false },
      { type: "text", text: "nudge 59" },
    ]);
  });

  it("maps a grown conversation like a fresh one, reusing the old messages' blocks", () => {
    const messages = conversation(40);
    const prefix = toAnthropicMessages(messages.slice(0, 31), "");
    const grown = toAnthropicMessages(messages, "");
    const fresh = toAnthropicMessages(structuredClone(messages), "");
    expect(JSON.stringify(grown)).toBe(JSON.stringify(fresh));
    // The first assistant turn's text block comes from the cache.
    expect(grown[1]?.content[1]).toBe(prefix[1]?.content[1]);
    expect(fresh[1]?.content[1]).not.toBe(prefix[1]?.content[1]);
  });

  it("maps a message replaced by a new object afresh", () => {
    const messages = conversation(10);
    const first = toAnthropicMessages(messages, "");
    // A beforeModel-style rewrite: a new object with different content in place of the old one.
    const rewritten = messages.map((message, index) =>
      index === 1 && message.role === "assistant"
        ? { ...message, content: [{ type: "text" as const, text: "Rewritten." }] }
        : message,
    );
    const second = toAnthropicMessages(rewritten, "");
    expect(second[1]?.content).toEqual([
      { type: "text", text: "Rewritten." },
      { type: "tool_use", id: "toolu_0", name: "read", input: { turn: 0 } },
    ]);
    // The untouched messages still come from the cache, and the original object still maps as before.
    expect(second[2]?.content[0]).toBe(first[2]?.content[0]);
    expect(JSON.stringify(toAnthropicMessages(messages, ""))).toBe(JSON.stringify(first));
  });
});
