import type { Message } from "@castellan/harness";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toInputItems } from "../../src/codex/input-items.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A long agent loop: per turn a reasoning item, a text and a saved function call, then the result. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "Start." }] }];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_${turn}`;
    const input = { turn, path: `f${turn}` };
    messages.push({
      role: "assistant",
      content: [
        {
          type: "provider",
          provider: "openai-responses",
          data: { id: `rs_${turn}`, type: "reasoning", summary: [], encrypted_content: "gAAAA" },
        },
        { type: "text", text: `Turn ${turn}.` },
        {
          type: "provider",
          provider: "openai-responses",
          // Spaced arguments: sent back byte for byte only while they still match the call.
          data: {
            id: `fc_${turn}`,
            type: "function_call",
            arguments: JSON.stringify(input, null, 1),
            call_id: id,
            name: "read",
          },
        },
      ],
      toolCalls: [{ id, name: "read", input }],
    });
    messages.push({
      role: "tool",
      toolCallId: id,
      toolName: "read",
      content: [{ type: "text", text: `r${turn}` }],
      isError: false,
    });
  }
  return messages;
}

describe("codex input item cache", () => {
  it("maps each message object once and gives the same output on every call", () => {
    const messages = conversation(60);
    const parse = vi.spyOn(JSON, "parse");
    const first = toInputItems(messages);
    // Each saved call's arguments are parsed once, to compare them with the call.
    expect(parse).toHaveBeenCalledTimes(60);
    const second = toInputItems(messages);
    expect(parse).toHaveBeenCalledTimes(60);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(second).not.toBe(first);
    // Every item is the one made the first time (text messages and results included): not re-mapped.
    for (const [index, item] of second.entries()) expect(item).toBe(first[index]);
    // The caller may add to the list (the live context) without touching the cache.
    second.push({ type: "message", role: "user", content: [{ type: "input_text", text: "ctx" }] });
    expect(JSON.stringify(toInputItems(messages))).toBe(JSON.stringify(first));
  });

  it("maps a grown conversation like a fresh one", () => {
    const messages = conversation(30);
    toInputItems(messages.slice(0, 21));
    const grown = toInputItems(messages);
    expect(JSON.stringify(grown)).toBe(JSON.stringify(toInputItems(structuredClone(messages))));
  });

  it("maps a message replaced by a new object afresh", () => {
    const messages = conversation(5);
    const first = toInputItems(messages);
    // A beforeModel-style rewrite of turn 0's call input: the saved item no longer says what
    // the call says, so a fresh function_call is made from the call.
    const rewritten = messages.map((message, index) =>
      index === 1 && message.role === "assistant"
        ? { ...message, toolCalls: [{ id: "call_0", name: "read", input: { turn: 0, path: "other" } }] }
        : message,
    );
    const second = toInputItems(rewritten);
    expect(second[3]).toEqual({
      type: "function_call",
      id: "fc_0",
      call_id: "call_0",
      name: "read",
      arguments: '{"turn":0,"path":"other"}',
    });
    expect(first[3]).toMatchObject({ arguments: '{\n "turn": 0,\n "path": "f0"\n}' });
    // The untouched messages still come from the cache.
    expect(second[4]).toBe(first[4]);
    expect(second[0]).toBe(first[0]);
  });
});
