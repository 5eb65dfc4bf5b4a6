// The adapter around @ai-sdk/openai's chat model, against a loopback server speaking the
// OpenAI Chat Completions wire format.
import { createOpenAI } from "@ai-sdk/openai";
import {
  isModelProviderError,
  type ModelErrorCode,
  type ModelRequest,
  type ModelStreamEvent,
} from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { neverAborts as signal } from "../support/signal.js";
import { collect } from "./support/fake-language-model.js";
import { end, errorBody, textChunks, toolCallChunks } from "./support/openai-sse.js";

const KEY = "sk-test-wire-KEY-7f3a9c";
let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) =>
    sendJson(response, 500, errorBody("no handler", "server_error")),
  );
});
afterEach(async () => {
  await fixture.close();
});

function binding(options: Parameters<typeof aiSdk>[1] = {}) {
  return aiSdk(createOpenAI({ baseURL: fixture.url, apiKey: KEY }).chat("gpt-4o-mini"), options);
}

const ask: ModelRequest = {
  system: "You are terse.",
  context: "The user is in Oslo.",
  messages: [{ role: "user", content: [{ type: "text", text: "Weather?" }] }],
  tools: [
    {
      name: "weather",
      description: "Current weather for a city.",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
  hostedTools: [],
};

/** The `messages` of the request the fixture received at `index`. */
function sentMessages(index: number): unknown[] {
  const body = fixture.requests[index]?.json as { messages?: unknown[] } | undefined;
  if (!body?.messages) throw new Error(`request ${index} has no messages`);
  return body.messages;
}

function lastError(events: readonly ModelStreamEvent[]): Error {
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(last)}`);
  return last.error;
}

function expectNoKey(events: readonly ModelStreamEvent[]): void {
  expect(JSON.stringify(events)).not.toContain(KEY);
  for (const event of events) {
    if (event.type !== "error") continue;
    for (const text of [
      event.error.message,
      event.error.stack ?? "",
      JSON.stringify(event.error),
      String(event.error),
    ]) {
      expect(text).not.toContain(KEY);
    }
  }
}

describe("aiSdk over @ai-sdk/openai (chat completions)", () => {
  it("streams text with usage, and sends the system prompt, conversation, context and tools", async () => {
    fixture.handle((_request, response) => sendSse(response, [...textChunks("Mild", " and dry."), ...end("stop")]));
    const events = await collect(
      binding({ pricing: { inputPerMillion: 1, outputPerMillion: 2, cacheReadPerMillion: 0.5 } }).stream(ask, {
        signal: signal(),
      }),
    );
    expect(events).toEqual([
      { type: "text-delta", text: "Mild" },
      { type: "text-delta", text: " and dry." },
      {
        type: "usage",
        usage: {
          inputTokens: 20,
          outputTokens: 4,
          cacheReadTokens: 8,
          costUsd: (12 * 1 + 8 * 0.5 + 4 * 2) / 1_000_000,
        },
      },
      { type: "finish", stopReason: "end" },
    ]);
    const sent = fixture.requests[0];
    expect(sent?.path).toBe("/chat/completions");
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = sent?.json as Record<string, unknown>;
    expect(body.stream).toBe(true);
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "Weather?" },
      { role: "user", content: "The user is in Oslo." },
    ]);
    expect(body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "weather",
          description: "Current weather for a city.",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ]);
    expectNoKey(events);
  });

  it("completes a tool round trip: a streamed call parsed, then its result sent back with its call id", async () => {
    fixture.handle((_request, response) =>
      sendSse(response, [...toolCallChunks("call_w1", "weather", '{"ci', 'ty":"Os', 'lo"}'), ...end("tool_calls")]),
    );
    const model = binding();
    const first = await collect(model.stream(ask, { signal: signal() }));
    expect(first.filter((event) => event.type === "tool-call" || event.type === "finish")).toEqual([
      { type: "tool-call", toolCall: { id: "call_w1", name: "weather", input: { city: "Oslo" } } },
      { type: "finish", stopReason: "tool-calls" },
    ]);

    fixture.handle((_request, response) => sendSse(response, [...textChunks("It is 12°C."), ...end("stop")]));
    const second = await collect(
      model.stream(
        {
          ...ask,
          messages: [
            ...ask.messages,
            {
              role: "assistant",
              content: [],
              toolCalls: [{ id: "call_w1", name: "weather", input: { city: "Oslo" } }],
            },
            {
              role: "tool",
              toolCallId: "call_w1",
              toolName: "weather",
              content: [{ type: "text", text: "12°C, dry" }],
              isError: false,
            },
          ],
        },
        { signal: signal() },
      ),
    );
    expect(second.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    const messages = sentMessages(1);
    expect(messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_w1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }],
      },
      { role: "tool", tool_call_id: "call_w1", content: "12°C, dry" },
      { role: "user", content: "The user is in Oslo." },
    ]);
  });

  it("classifies 401, 429, 500 and 529 answers, retrying the retryable ones, without leaking the key", async () => {
    const cases: [number, Record<string, unknown>, ModelErrorCode, number][] = [
      [
        401,
        errorBody(`Incorrect API key provided: ${KEY}.`, "invalid_request_error", "invalid_api_key"),
        "model_auth",
        1,
      ],
      [429, errorBody("Rate limit reached.", "requests", "rate_limit_exceeded"), "model_rate_limited", 3],
      [500, errorBody("The server had an error.", "server_error"), "model_server_error", 3],
      [529, errorBody("Overloaded.", "overloaded_error"), "model_overloaded", 3],
    ];
    for (const [status, body, code, requests] of cases) {
      fixture.requests.length = 0;
      fixture.handle((_request, response) =>
        sendJson(response, status, body, { "retry-after-ms": "0", "x-request-id": `req_${status}` }),
      );
      const events = await collect(binding().stream(ask, { signal: signal() }));
      expect(events).toHaveLength(1);
      const error = lastError(events);
      expect(isModelProviderError(error, code), `${status}: ${error.message}`).toBe(true);
      expect(error).toMatchObject({ status, requestId: `req_${status}`, provider: "ai-sdk" });
      expect(fixture.requests).toHaveLength(requests);
      expectNoKey(events);
    }
  });

  it("recovers from a rate limit that clears, honouring retry-after", async () => {
    let calls = 0;
    fixture.handle((_request, response) => {
      calls++;
      if (calls === 1) return sendJson(response, 429, errorBody("Slow down.", "requests"), { "retry-after": "0" });
      return sendSse(response, [...textChunks("ok"), ...end("stop")]);
    });
    const events = await collect(binding().stream(ask, { signal: signal() }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "usage", "finish"]);
    expect(calls).toBe(2);
  });

  it("ends a stream cut by a disconnect with model_network, and does not retry it", async () => {
    fixture.handle((_request, response) =>
      sendSse(response, [...textChunks("Hal", "f an answer"), ...end("stop")], { disconnectAfter: 3 }),
    );
    const events = await collect(binding().stream(ask, { signal: signal() }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "text-delta", "error"]);
    expect(isModelProviderError(lastError(events), "model_network")).toBe(true);
    expect(fixture.requests).toHaveLength(1);
    expectNoKey(events);
  });

  it("ends a truncated stream, a malformed chunk and a mid-stream error frame with typed errors", async () => {
    const cases: [Parameters<typeof sendSse>[1], ModelErrorCode][] = [
      [textChunks("no end"), "model_stream_malformed"],
      [[...textChunks("a"), { data: "{not json" }, ...end("stop")], "model_stream_malformed"],
      [
        [...textChunks("a"), { data: errorBody("Upstream failed.", "server_error") }, ...end("stop")],
        "model_server_error",
      ],
    ];
    for (const [events, code] of cases) {
      fixture.handle((_request, response) => sendSse(response, events));
      const received = await collect(binding().stream(ask, { signal: signal() }));
      expect(received[0]).toEqual({ type: "text-delta", text: events === cases[0]?.[0] ? "no end" : "a" });
      expect(isModelProviderError(lastError(received), code), lastError(received).message).toBe(true);
    }
  });

  it("aborts a streaming answer promptly, closing the connection", async () => {
    let closed!: Promise<void>;
    fixture.handle((_request, response) => {
      closed = new Promise((resolve) => response.on("close", () => resolve()));
      return sendSse(response, textChunks("Still", " going"), { hold: true });
    });
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    for await (const event of binding().stream(ask, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(events.map((event) => event.type)).toEqual(["text-delta", "error"]);
    expect(lastError(events).name).toBe("AbortError");
    await closed;
    expect(fixture.requests).toHaveLength(1);
  });

  it("fails a hosted tool on the chat model with model_unsupported before sending anything", async () => {
    const events = await collect(
      binding().stream(
        { ...ask, hostedTools: [{ name: "web_search", hosted: { kind: "web-search" } }] },
        { signal: signal() },
      ),
    );
    expect(isModelProviderError(lastError(events), "model_unsupported")).toBe(true);
    expect(fixture.requests).toHaveLength(0);
  });

  it("sends images in user messages as image parts", async () => {
    fixture.handle((_request, response) => sendSse(response, [...textChunks("A dot."), ...end("stop")]));
    await collect(
      binding().stream(
        {
          ...ask,
          context: "",
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "What is it?" },
                { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
              ],
            },
          ],
        },
        { signal: signal() },
      ),
    );
    const messages = sentMessages(0);
    expect(messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is it?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    });
  });
});
