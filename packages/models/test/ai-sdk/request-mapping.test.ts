import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { isModelProviderError, type ModelRequest, type ModelStreamEvent } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { describe, expect, it } from "vitest";
import { modelRequest } from "../support/request.js";
import { collect, fakeLanguageModel, finish, textParts } from "./support/fake-language-model.js";

const PNG = "iVBORw0KGgo=";

const request = modelRequest;

/** Streams one request through a fake model that answers "ok"; returns the call options and events. */
async function send(overrides: Partial<ModelRequest>, options: Parameters<typeof aiSdk>[1] = {}, provider?: string) {
  const model = fakeLanguageModel([{ parts: [...textParts("t", "ok"), finish()] }], provider ? { provider } : {});
  const events = await collect(
    aiSdk(model, options).stream(request(overrides), { signal: new AbortController().signal }),
  );
  return { call: model.calls[0], events, model };
}

describe("aiSdk request mapping", () => {
  it("sends the system prompt, the conversation in order and the context as a final user message", async () => {
    const { call } = await send({
      system: "Be brief.",
      context: "Today is Monday.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", mediaType: "image/png", data: PNG },
            { type: "provider", provider: "anthropic", data: { signature: "x" } },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "A square." }], toolCalls: [] },
        { role: "user", content: [{ type: "text", text: "Thanks" }] },
      ],
    });
    expect(call?.prompt).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: PNG } },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "A square." }] },
      { role: "user", content: [{ type: "text", text: "Thanks" }] },
      { role: "user", content: [{ type: "text", text: "Today is Monday." }] },
    ] satisfies LanguageModelV4Prompt);
    expect(call?.abortSignal).toBeInstanceOf(AbortSignal);
  });

  it("leaves out an empty system prompt, empty context and empty messages", async () => {
    const { call } = await send({
      messages: [
        { role: "user", content: [{ type: "text", text: "" }] },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
    });
    expect(call?.prompt).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(call?.tools).toBeUndefined();
  });

  it("sends tool calls with their ids and groups tool results, text, errors and images in the spec's output formats", async () => {
    const { call } = await send({
      messages: [
        { role: "user", content: [{ type: "text", text: "look" }] },
        {
          role: "assistant",
          content: [{ type: "text", text: "Checking." }],
          toolCalls: [
            { id: "call_a", name: "read", input: { path: "a.txt" } },
            { id: "call_b", name: "shot", input: {} },
            { id: "call_c", name: "read", input: { path: "missing" } },
            { id: "call_d", name: "shot", input: { broken: true } },
          ],
        },
        {
          role: "tool",
          toolCallId: "call_a",
          toolName: "read",
          content: [{ type: "text", text: "alpha" }],
          isError: false,
        },
        {
          role: "tool",
          toolCallId: "call_b",
          toolName: "shot",
          content: [
            { type: "text", text: "screen:" },
            { type: "image", mediaType: "image/png", data: PNG },
          ],
          isError: false,
        },
        {
          role: "tool",
          toolCallId: "call_c",
          toolName: "read",
          content: [{ type: "text", text: "no such file" }],
          isError: true,
        },
        {
          role: "tool",
          toolCallId: "call_d",
          toolName: "shot",
          content: [{ type: "image", mediaType: "image/jpeg", data: PNG }],
          isError: true,
        },
      ],
    });
    expect(call?.prompt.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool-call", toolCallId: "call_a", toolName: "read", input: { path: "a.txt" } },
          { type: "tool-call", toolCallId: "call_b", toolName: "shot", input: {} },
          { type: "tool-call", toolCallId: "call_c", toolName: "read", input: { path: "missing" } },
          { type: "tool-call", toolCallId: "call_d", toolName: "shot", input: { broken: true } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "call_a", toolName: "read", output: { type: "text", value: "alpha" } },
          {
            type: "tool-result",
            toolCallId: "call_b",
            toolName: "shot",
            output: {
              type: "content",
              value: [
                { type: "text", text: "screen:" },
                { type: "file", mediaType: "image/png", data: { type: "data", data: PNG } },
              ],
            },
          },
          {
            type: "tool-result",
            toolCallId: "call_c",
            toolName: "read",
            output: { type: "error-text", value: "no such file" },
          },
          {
            type: "tool-result",
            toolCallId: "call_d",
            toolName: "shot",
            output: {
              type: "content",
              value: [
                { type: "text", text: "The tool call failed." },
                { type: "file", mediaType: "image/jpeg", data: { type: "data", data: PNG } },
              ],
            },
          },
        ],
      },
    ] satisfies LanguageModelV4Prompt);
  });

  it("sends this adapter's provider blocks back as the parts they came from, in place, and drops other adapters' blocks", async () => {
    const { call } = await send({
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          content: [
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "reasoning", text: "Let me think.", metadata: { anthropic: { signature: "sig-1" } } },
            },
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "reasoning", text: "", metadata: { anthropic: { redactedData: "r" } } },
            },
            { type: "text", text: "Answer" },
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "metadata", metadata: { openai: { itemId: "msg_1" } } },
            },
            { type: "provider", provider: "openrouter", data: { reasoning_details: [] } },
            { type: "image", mediaType: "image/png", data: PNG },
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "metadata", metadata: { google: { thoughtSignature: "ts" } } },
            },
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "tool-call", toolCallId: "ws_1", toolName: "web_search", input: { query: "q" } },
            },
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "tool-result", toolCallId: "ws_1", toolName: "web_search", result: { hits: 2 } },
            },
            { type: "provider", provider: "ai-sdk", data: { part: "source", detail: { url: "https://example.com" } } },
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "custom", kind: "openai.compaction", metadata: { openai: { id: "c" } } },
            },
            {
              type: "provider",
              provider: "ai-sdk",
              data: { part: "file", mediaType: "application/pdf", data: "JVBERi0=" },
            },
            { type: "provider", provider: "ai-sdk", data: { part: "bogus" } },
            {
              type: "provider",
              provider: "ai-sdk",
              data: {
                part: "tool-call-metadata",
                toolCallId: "call_1",
                metadata: { google: { thoughtSignature: "call-sig" } },
              },
            },
          ],
          toolCalls: [{ id: "call_1", name: "lookup", input: { id: 7 } }],
        },
      ],
    });
    expect(call?.prompt[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "Let me think.", providerOptions: { anthropic: { signature: "sig-1" } } },
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "r" } } },
        { type: "text", text: "Answer", providerOptions: { openai: { itemId: "msg_1" } } },
        {
          type: "file",
          mediaType: "image/png",
          data: { type: "data", data: PNG },
          providerOptions: { google: { thoughtSignature: "ts" } },
        },
        {
          type: "tool-call",
          toolCallId: "ws_1",
          toolName: "web_search",
          input: { query: "q" },
          providerExecuted: true,
        },
        {
          type: "tool-result",
          toolCallId: "ws_1",
          toolName: "web_search",
          output: { type: "json", value: { hits: 2 } },
        },
        { type: "custom", kind: "openai.compaction", providerOptions: { openai: { id: "c" } } },
        { type: "file", mediaType: "application/pdf", data: { type: "data", data: "JVBERi0=" } },
        {
          type: "tool-call",
          toolCallId: "call_1",
          toolName: "lookup",
          input: { id: 7 },
          providerOptions: { google: { thoughtSignature: "call-sig" } },
        },
      ],
    });
  });

  it("sends tools as function tools with their JSON Schemas, and the binding's provider options and token limit", async () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const providerOptions = { openai: { store: false } };
    const { call } = await send(
      {
        messages: [{ role: "user", content: [{ type: "text", text: "weather?" }] }],
        tools: [{ name: "weather", description: "Weather.", inputSchema: schema }],
      },
      { providerOptions, maxOutputTokens: 256 },
    );
    expect(call?.tools).toEqual([{ type: "function", name: "weather", description: "Weather.", inputSchema: schema }]);
    expect(call?.providerOptions).toEqual(providerOptions);
    expect(call?.providerOptions).not.toBe(providerOptions);
    expect(call?.maxOutputTokens).toBe(256);
  });
});

describe("aiSdk hosted tools", () => {
  const ask = { messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "search" }] }] };

  it("maps web-search to openai.web_search on OpenAI Responses models", async () => {
    const { call } = await send(
      { ...ask, hostedTools: [{ name: "web_search", hosted: { kind: "web-search", searchContextSize: "low" } }] },
      {},
      "openai.responses",
    );
    expect(call?.tools).toEqual([
      { type: "provider", id: "openai.web_search", name: "web_search", args: { searchContextSize: "low" } },
    ]);
  });

  it("maps a kind through providerTools, and names any provider tool with kind ai-sdk", async () => {
    const { call } = await send(
      {
        ...ask,
        hostedTools: [
          { name: "web_search", hosted: { kind: "web-search", maxUses: 2 } },
          { name: "code", hosted: { kind: "ai-sdk", id: "anthropic.code_execution_20250825", args: { a: 1 } } },
        ],
      },
      {
        providerTools: {
          "web-search": { id: "anthropic.web_search_20250305", args: { maxUses: 5, blockedDomains: ["x.test"] } },
        },
      },
      "anthropic.messages",
    );
    expect(call?.tools).toEqual([
      {
        type: "provider",
        id: "anthropic.web_search_20250305",
        name: "web_search",
        args: { maxUses: 2, blockedDomains: ["x.test"] },
      },
      { type: "provider", id: "anthropic.code_execution_20250825", name: "code", args: { a: 1 } },
    ]);
  });

  it("fails with model_unsupported, before any request, for a hosted tool the binding cannot serve", async () => {
    for (const hosted of [{ kind: "web-search" }, { kind: "ai-sdk", id: "no-dot" }]) {
      const { events, model } = await send(
        { ...ask, hostedTools: [{ name: "web_search", hosted }] },
        {},
        "openai.chat",
      );
      expect(model.calls).toHaveLength(0);
      expect(events).toHaveLength(1);
      const error = (events[0] as Extract<ModelStreamEvent, { type: "error" }>).error;
      expect(isModelProviderError(error, "model_unsupported")).toBe(true);
      expect(error.message).toContain('"web_search"');
    }
  });

  it("fails with model_unsupported when the model reports the provider tool it was sent as unsupported", async () => {
    const model = fakeLanguageModel([
      {
        parts: [
          { type: "stream-start", warnings: [{ type: "unsupported", feature: "tool type: provider" }] },
          ...textParts("t", "searching without search"),
          finish(),
        ],
      },
    ]);
    const events = await collect(
      aiSdk(model, { providerTools: { "web-search": { id: "fake.search" } } }).stream(
        request({ ...ask, hostedTools: [{ name: "web_search", hosted: { kind: "web-search" } }] }),
        { signal: new AbortController().signal },
      ),
    );
    expect(events).toHaveLength(1);
    expect(isModelProviderError((events[0] as { error?: unknown }).error, "model_unsupported")).toBe(true);
    expect(model.cancelled).toBe(1);
  });
});
