import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import {
  type AssistantMessage,
  isModelProviderError,
  type ModelRequest,
  type ModelStreamEvent,
} from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { describe, expect, it } from "vitest";
import { assemble } from "../support/stream.js";
import { collect, fakeLanguageModel, finish, textParts, usage } from "./support/fake-language-model.js";

const ask: ModelRequest = {
  system: "",
  context: "",
  messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  tools: [],
  hostedTools: [],
};

async function streamParts(parts: readonly LanguageModelV4StreamPart[], options: Parameters<typeof aiSdk>[1] = {}) {
  const model = fakeLanguageModel([{ parts }]);
  return await collect(aiSdk(model, options).stream(ask, { signal: new AbortController().signal }));
}

function errorOf(events: readonly ModelStreamEvent[]): Error {
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(last)}`);
  return last.error;
}

describe("aiSdk stream mapping", () => {
  it("streams text deltas in order, then one usage event and finish", async () => {
    const events = await streamParts([
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: "r1", modelId: "fake-1" },
      ...textParts("t1", "Hel", "", "lo"),
      { type: "raw", rawValue: { anything: true } },
      finish("stop", usage(12, 3)),
    ]);
    expect(events).toEqual(
      [
        { type: "text-delta", text: "Hel" },
        { type: "text-delta", text: "lo" },
        {
          type: "usage",
          usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: undefined, cacheWriteTokens: undefined },
        },
        { type: "finish", stopReason: "end" },
      ].map((event) => JSON.parse(JSON.stringify(event))),
    );
  });

  it("reports cached tokens and the cost from the pricing option", async () => {
    const events = await streamParts(
      [...textParts("t", "x"), finish("stop", usage(1_000, 200, { read: 600, write: 100 }))],
      {
        pricing: { inputPerMillion: 3, outputPerMillion: 15, cacheReadPerMillion: 0.3, cacheWritePerMillion: 3.75 },
      },
    );
    const reported = events.find((event) => event.type === "usage");
    expect(reported).toEqual({
      type: "usage",
      usage: {
        inputTokens: 1_000,
        outputTokens: 200,
        cacheReadTokens: 600,
        cacheWriteTokens: 100,
        costUsd: (300 * 3 + 600 * 0.3 + 100 * 3.75 + 200 * 15) / 1_000_000,
      },
    });
  });

  it("maps finish reasons to stop reasons", async () => {
    const reasons = [
      ["stop", "end"],
      ["length", "max-tokens"],
      ["content-filter", "refusal"],
      ["other", "other"],
    ] as const;
    for (const [unified, stopReason] of reasons) {
      const events = await streamParts([...textParts("t", "x"), finish(unified)]);
      expect(events.at(-1)).toEqual({ type: "finish", stopReason });
    }
  });

  it("streams reasoning as thinking deltas and keeps it with its metadata as a provider block in place", async () => {
    const events = await streamParts([
      { type: "reasoning-start", id: "r1", providerMetadata: { openai: { itemId: "rs_1" } } },
      { type: "reasoning-delta", id: "r1", delta: "Think " },
      { type: "reasoning-delta", id: "r1", delta: "hard." },
      {
        type: "reasoning-end",
        id: "r1",
        providerMetadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: "enc", dropped: undefined } },
      },
      ...textParts("t", "Answer"),
      finish(),
    ]);
    expect(events.slice(0, 4)).toEqual([
      { type: "thinking-delta", text: "Think " },
      { type: "thinking-delta", text: "hard." },
      {
        type: "content",
        block: {
          type: "provider",
          provider: "ai-sdk",
          data: {
            part: "reasoning",
            text: "Think hard.",
            metadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: "enc" } },
          },
        },
      },
      { type: "text-delta", text: "Answer" },
    ]);
  });

  it("keeps text metadata after its text, and closes reasoning a provider left open", async () => {
    const events = await streamParts([
      { type: "text-start", id: "m1", providerMetadata: { openai: { itemId: "msg_1" } } },
      { type: "text-delta", id: "m1", delta: "One." },
      { type: "text-end", id: "m1", providerMetadata: { openai: { itemId: "msg_1", phase: "final_answer" } } },
      { type: "text-start", id: "m2", providerMetadata: { openai: { itemId: "msg_2" } } },
      { type: "text-end", id: "m2" },
      { type: "reasoning-start", id: "r9", providerMetadata: { anthropic: { signature: "s" } } },
      { type: "reasoning-delta", id: "r9", delta: "late" },
      finish(),
    ]);
    expect(assemble(events).content).toEqual([
      { type: "text", text: "One." },
      {
        type: "provider",
        provider: "ai-sdk",
        data: { part: "metadata", metadata: { openai: { itemId: "msg_1", phase: "final_answer" } } },
      },
      {
        type: "provider",
        provider: "ai-sdk",
        data: { part: "reasoning", text: "late", metadata: { anthropic: { signature: "s" } } },
      },
    ]);
  });

  it("assembles tool calls from the tool-call part, keeps their metadata, and says tool-calls", async () => {
    const events = await streamParts([
      { type: "tool-input-start", id: "call_1", toolName: "weather" },
      { type: "tool-input-delta", id: "call_1", delta: '{"city":' },
      { type: "tool-input-delta", id: "call_1", delta: '"Oslo"}' },
      { type: "tool-input-end", id: "call_1" },
      {
        type: "tool-call",
        toolCallId: "call_1",
        toolName: "weather",
        input: '{"city":"Oslo"}',
        providerMetadata: { google: { thoughtSignature: "sig" } },
      },
      { type: "tool-call", toolCallId: "call_2", toolName: "time", input: "" },
      finish("stop"),
    ]);
    expect(events.filter((event) => event.type === "tool-call")).toEqual([
      { type: "tool-call", toolCall: { id: "call_1", name: "weather", input: { city: "Oslo" } } },
      { type: "tool-call", toolCall: { id: "call_2", name: "time", input: {} } },
    ]);
    expect(assemble(events).content).toEqual([
      {
        type: "provider",
        provider: "ai-sdk",
        data: { part: "tool-call-metadata", toolCallId: "call_1", metadata: { google: { thoughtSignature: "sig" } } },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "tool-calls" });
  });

  it("assembles a tool call from its streamed input when no tool-call part came", async () => {
    const events = await streamParts([
      { type: "tool-input-start", id: "call_1", toolName: "echo" },
      { type: "tool-input-delta", id: "call_1", delta: '{"a":[1,' },
      { type: "tool-input-delta", id: "call_1", delta: "2]}" },
      { type: "tool-input-end", id: "call_1" },
      { type: "tool-input-start", id: "call_2", toolName: "say", inputEncoding: "text" },
      { type: "tool-input-delta", id: "call_2", delta: "plain words" },
      { type: "tool-input-end", id: "call_2" },
      finish("tool-calls"),
    ]);
    expect(events.filter((event) => event.type === "tool-call")).toEqual([
      { type: "tool-call", toolCall: { id: "call_1", name: "echo", input: { a: [1, 2] } } },
      { type: "tool-call", toolCall: { id: "call_2", name: "say", input: "plain words" } },
    ]);
  });

  it("reports a tool call with unparsable arguments as a malformed call, for the Runner to settle", async () => {
    const events = await streamParts([
      { type: "tool-call", toolCallId: "c1", toolName: "x", input: '{"a":' },
      finish("length"),
    ]);
    expect(events.filter((event) => event.type === "tool-call" || event.type === "finish")).toEqual([
      { type: "tool-call", toolCall: { id: "c1", name: "x", input: {}, malformedInput: '{"a":' } },
      { type: "finish", stopReason: "max-tokens" },
    ]);
  });

  it("ends with model_stream_malformed for an unfinished tool call, or no finish", async () => {
    const cases: LanguageModelV4StreamPart[][] = [
      [
        { type: "tool-input-start", id: "c1", toolName: "x" },
        { type: "tool-input-delta", id: "c1", delta: "{" },
        finish("tool-calls"),
      ],
      [...textParts("t", "cut off")],
      [...textParts("t", "cut off"), finish("interrupted")],
    ];
    for (const parts of cases) {
      const events = await streamParts(parts);
      expect(events.filter((event) => event.type === "tool-call" || event.type === "finish")).toEqual([]);
      expect(isModelProviderError(errorOf(events), "model_stream_malformed")).toBe(true);
    }
  });

  it("keeps provider-executed tool calls and results, sources, files and custom parts as provider blocks; images as image blocks", async () => {
    const events = await streamParts([
      { type: "tool-call", toolCallId: "ws_1", toolName: "web_search", input: '{"query":"x"}', providerExecuted: true },
      { type: "tool-result", toolCallId: "ws_1", toolName: "web_search", result: { partial: true }, preliminary: true },
      { type: "tool-result", toolCallId: "ws_1", toolName: "web_search", result: { hits: 1 } },
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com", title: "Example" },
      { type: "file", mediaType: "image/png", data: { type: "data", data: new Uint8Array([1, 2, 3]) } },
      { type: "file", mediaType: "application/pdf", data: { type: "url", url: new URL("https://example.com/a.pdf") } },
      { type: "reasoning-file", mediaType: "image/png", data: { type: "data", data: "AAA=" } },
      { type: "custom", kind: "openai.compaction", providerMetadata: { openai: { id: "c1" } } },
      finish("stop"),
    ]);
    expect(assemble(events)).toEqual({
      role: "assistant",
      toolCalls: [],
      content: [
        {
          type: "provider",
          provider: "ai-sdk",
          data: { part: "tool-call", toolCallId: "ws_1", toolName: "web_search", input: { query: "x" } },
        },
        {
          type: "provider",
          provider: "ai-sdk",
          data: { part: "tool-result", toolCallId: "ws_1", toolName: "web_search", result: { hits: 1 } },
        },
        {
          type: "provider",
          provider: "ai-sdk",
          data: {
            part: "source",
            detail: { type: "source", sourceType: "url", id: "s1", url: "https://example.com", title: "Example" },
          },
        },
        { type: "image", mediaType: "image/png", data: "AQID" },
        {
          type: "provider",
          provider: "ai-sdk",
          data: { part: "file", mediaType: "application/pdf", url: "https://example.com/a.pdf" },
        },
        {
          type: "provider",
          provider: "ai-sdk",
          data: { part: "file", mediaType: "image/png", data: "AAA=", reasoning: true },
        },
        {
          type: "provider",
          provider: "ai-sdk",
          data: { part: "custom", kind: "openai.compaction", metadata: { openai: { id: "c1" } } },
        },
      ],
    });
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
  });

  it("ends with a classified error at an error part, and at a finish that says error", async () => {
    const overloaded = await streamParts([
      ...textParts("t", "partial"),
      { type: "error", error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      finish(),
    ]);
    expect(overloaded.map((event) => event.type)).toEqual(["text-delta", "error"]);
    expect(isModelProviderError(errorOf(overloaded), "model_overloaded")).toBe(true);

    const badChunk = await streamParts([
      { type: "error", error: Object.assign(new Error("bad"), { name: "AI_TypeValidationError" }) },
    ]);
    expect(isModelProviderError(errorOf(badChunk), "model_stream_malformed")).toBe(true);

    const finishedWithError = await streamParts([...textParts("t", "x"), finish("error")]);
    expect(finishedWithError.map((event) => event.type)).toEqual(["text-delta", "usage", "error"]);
    expect(isModelProviderError(errorOf(finishedWithError), "model_server_error")).toBe(true);
  });

  it("sends the blocks of a streamed answer back unchanged on the next call", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      { type: "reasoning-start", id: "r", providerMetadata: { anthropic: { signature: "sig" } } },
      { type: "reasoning-delta", id: "r", delta: "Plan." },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "t", providerMetadata: { openai: { itemId: "msg_9" } } },
      { type: "text-delta", id: "t", delta: "Calling." },
      { type: "text-end", id: "t" },
      {
        type: "tool-call",
        toolCallId: "c1",
        toolName: "lookup",
        input: '{"q":1}',
        providerMetadata: { openai: { itemId: "fc_1" } },
      },
      finish("tool-calls"),
    ];
    const model = fakeLanguageModel([{ parts }, { parts: [...textParts("t", "done"), finish()] }]);
    const binding = aiSdk(model);
    const signal = new AbortController().signal;
    const first = await collect(binding.stream(ask, { signal }));
    const answer = assemble(first);
    // As a saved record would hold it.
    const saved = JSON.parse(JSON.stringify(answer)) as AssistantMessage;
    await collect(
      binding.stream(
        {
          ...ask,
          messages: [
            ...ask.messages,
            saved,
            {
              role: "tool",
              toolCallId: "c1",
              toolName: "lookup",
              content: [{ type: "text", text: "42" }],
              isError: false,
            },
          ],
        },
        { signal },
      ),
    );
    expect(model.calls[1]?.prompt.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Plan.", providerOptions: { anthropic: { signature: "sig" } } },
          { type: "text", text: "Calling.", providerOptions: { openai: { itemId: "msg_9" } } },
          {
            type: "tool-call",
            toolCallId: "c1",
            toolName: "lookup",
            input: { q: 1 },
            providerOptions: { openai: { itemId: "fc_1" } },
          },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "lookup", output: { type: "text", value: "42" } }],
      },
    ]);
  });
});
