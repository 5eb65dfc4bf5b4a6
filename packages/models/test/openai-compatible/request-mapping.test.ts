// What openaiCompatible sends: the Chat Completions request body and headers as the loopback
// server received them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { type HttpFixture, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { chatRequests, collect, fakeKey, modelRequest, never, textAnswer } from "./chat-fixture.js";

let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) => sendSse(response, textAnswer(["ok"])));
});

afterEach(async () => {
  await fixture.close();
});

const png = { type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };
const jpeg = { type: "image" as const, mediaType: "image/jpeg", data: "/9j/4AAQ" };

function model(options: Partial<Parameters<typeof openaiCompatible>[0]> = {}) {
  return openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model", ...options });
}

describe("openaiCompatible requests", () => {
  it("streams with usage, sends the key as a bearer token, and the extra headers", async () => {
    await collect(model({ headers: { "X-Team": "castellan" } }).stream(modelRequest(), { signal: never }));
    const [request] = fixture.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe(`Bearer ${fakeKey}`);
    expect(request?.headers["x-team"]).toBe("castellan");
    expect(request?.headers["openai-organization"]).toBeUndefined();
    expect(request?.json).toMatchObject({
      model: "fixture-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(request?.json).not.toHaveProperty("tools");
    expect(request?.json).not.toHaveProperty("max_tokens");
  });

  it("sends the system prompt first, the conversation, then the context as a last user message", async () => {
    await collect(
      model().stream(
        modelRequest({
          system: "Answer briefly.",
          context: "Today is Tuesday.",
          messages: [
            { role: "user", content: [{ type: "text", text: "Hi" }] },
            {
              role: "assistant",
              content: [
                { type: "text", text: "Hello!" },
                { type: "provider", provider: "anthropic", data: { x: 1 } },
              ],
              toolCalls: [],
            },
            { role: "user", content: [{ type: "text", text: "What day is it?" }] },
          ],
        }),
        { signal: never },
      ),
    );
    expect(chatRequests(fixture.requests)[0]?.messages).toEqual([
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: "What day is it?" },
      { role: "user", content: "Today is Tuesday." },
    ]);
  });

  it("sends tools as functions and maxOutputTokens in the chosen field", async () => {
    const tools = [
      {
        name: "lookup",
        description: "Find a record.",
        inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      },
    ];
    await collect(model({ maxOutputTokens: 512 }).stream(modelRequest({ tools }), { signal: never }));
    await collect(
      model({ maxOutputTokens: 256, maxTokensField: "max_completion_tokens" }).stream(modelRequest(), {
        signal: never,
      }),
    );
    const [first, second] = chatRequests(fixture.requests);
    expect(first?.tools).toEqual([
      {
        type: "function",
        function: {
          name: "lookup",
          description: "Find a record.",
          parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        },
      },
    ]);
    expect(first?.max_tokens).toBe(512);
    expect(second?.max_completion_tokens).toBe(256);
    expect(second).not.toHaveProperty("max_tokens");
  });

  it("sends user images as image_url parts with data URLs", async () => {
    await collect(
      model().stream(
        modelRequest({ messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, png] }] }),
        { signal: never },
      ),
    );
    expect(chatRequests(fixture.requests)[0]?.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png.data}` } },
        ],
      },
    ]);
  });

  it("keeps tool call ids, preserves text tool replies and sends their images labelled after the reply group", async () => {
    await collect(
      model().stream(
        modelRequest({
          messages: [
            { role: "user", content: [{ type: "text", text: "Look at both pages." }] },
            {
              role: "assistant",
              content: [{ type: "text", text: "Capturing." }],
              toolCalls: [
                { id: "call_a", name: "screenshot", input: { page: "home" } },
                { id: "call_b", name: "screenshot", input: { page: "about" } },
                { id: "call_c", name: "status", input: {} },
              ],
            },
            {
              role: "tool",
              toolCallId: "call_a",
              toolName: "screenshot",
              content: [{ type: "text", text: "home page captured" }, png],
              isError: false,
            },
            { role: "tool", toolCallId: "call_b", toolName: "screenshot", content: [jpeg], isError: false },
            {
              role: "tool",
              toolCallId: "call_c",
              toolName: "status",
              content: [{ type: "text", text: "not found" }],
              isError: true,
            },
            { role: "user", content: [{ type: "text", text: "Compare them." }] },
          ],
        }),
        { signal: never },
      ),
    );
    expect(chatRequests(fixture.requests)[0]?.messages).toEqual([
      { role: "user", content: "Look at both pages." },
      {
        role: "assistant",
        content: "Capturing.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "screenshot", arguments: '{"page":"home"}' } },
          { id: "call_b", type: "function", function: { name: "screenshot", arguments: '{"page":"about"}' } },
          { id: "call_c", type: "function", function: { name: "status", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "home page captured" },
      { role: "tool", tool_call_id: "call_b", content: "(1 image(s), sent in the next user message)" },
      { role: "tool", tool_call_id: "call_c", content: "Error: not found" },
      {
        role: "user",
        content: [
          { type: "text", text: "Image from tool call call_a (screenshot):" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png.data}` } },
          { type: "text", text: "Image from tool call call_b (screenshot):" },
          { type: "image_url", image_url: { url: `data:image/jpeg;base64,${jpeg.data}` } },
        ],
      },
      { role: "user", content: "Compare them." },
    ]);
  });

  it("sends an assistant turn with only tool calls with null content", async () => {
    await collect(
      model().stream(
        modelRequest({
          messages: [
            { role: "user", content: [{ type: "text", text: "Go" }] },
            { role: "assistant", content: [], toolCalls: [{ id: "call_1", name: "status", input: {} }] },
            { role: "tool", toolCallId: "call_1", toolName: "status", content: [], isError: false },
          ],
        }),
        { signal: never },
      ),
    );
    const messages = chatRequests(fixture.requests)[0]?.messages;
    expect(messages?.[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "status", arguments: "{}" } }],
    });
    expect(messages?.[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: "" });
    expect(messages).toHaveLength(3);
  });

  it("creating a binding connects to nothing and keeps the key off the binding", () => {
    const binding = model();
    expect(fixture.requests).toHaveLength(0);
    expect(binding.specifier).toBe("openai-compatible/fixture-model");
    // A compatible server may serve any model: no window is assumed.
    expect(binding.contextWindow).toBeUndefined();
    expect(model({ contextWindow: 32_000 }).contextWindow).toBe(32_000);
    expect(JSON.stringify(binding)).not.toContain(fakeKey);
    expect(Object.values(binding).some((value) => typeof value === "string" && value.includes(fakeKey))).toBe(false);
  });

  it("rejects bad options when the binding is created", () => {
    expect(() => model({ apiKey: "" })).toThrow(/apiKey/);
    expect(() => model({ baseURL: "not a url" })).toThrow(/baseURL/);
    expect(() => model({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => model({ headers: { "X-Name": "caf\u00e9" } })).toThrow(/printable ASCII/);
    expect(() => model({ pricing: { inputPerMillion: -1, outputPerMillion: 1 } })).toThrow(/pricing/);
  });
});
