import { isModelProviderError, type ModelStreamEvent } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpFixture, type SseEvent, startHttpFixture } from "../support/http-fixture.ts";
import {
  answer,
  assertNoKey,
  collect,
  errorEvent,
  FAKE_KEY,
  finalError,
  MODEL,
  REQUEST_ID,
  sendAnswer,
} from "./support/wire.ts";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function modelAnswering(
  events: Parameters<typeof sendAnswer>[1],
  options: Parameters<typeof sendAnswer>[2] = {},
  modelOptions: Partial<Parameters<typeof anthropic>[0]> = {},
) {
  fixture = await startHttpFixture((_request, response) => sendAnswer(response, events, options));
  return anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url, maxRetries: 0, ...modelOptions });
}

/** The message object of a scripted answer's message_start, to change in place. */
function startedMessage(events: readonly SseEvent[]): Record<string, unknown> {
  const data = events[0]?.data as { type?: string; message?: Record<string, unknown> } | undefined;
  if (data?.type !== "message_start" || !data.message) throw new Error("the answer does not begin with message_start");
  return data.message;
}

describe("the Anthropic stream", () => {
  it("streams text deltas in order, one usage event, then finish", async () => {
    const model = await modelAnswering(answer([{ text: ["Hel", "lo", " there"] }]));
    const events = await collect(model);
    expect(events).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "text-delta", text: " there" },
      { type: "usage", usage: { inputTokens: 12, outputTokens: 7 } },
      { type: "finish", stopReason: "end" },
    ]);
    // SDK 1.x (API version 2026-10-21) sends the API key as a bearer token.
    expect(fixture?.requests[0]?.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
    expect(fixture?.requests[0]?.headers["anthropic-version"]).toBe("2026-10-21");
    assertNoKey(events, model);
  });

  it("assembles a tool call from its streamed input pieces", async () => {
    const model = await modelAnswering(
      answer(
        [
          { text: ["Let me look."] },
          { tool: { id: "toolu_01", name: "lookup", json: ['{"que', 'ry": "ce', 'dar", "n": 2}'] } },
          { tool: { id: "toolu_02", name: "noargs", json: [] } },
        ],
        { stopReason: "tool_use" },
      ),
    );
    const events = await collect(model);
    expect(events.filter((event) => event.type !== "usage")).toEqual([
      { type: "text-delta", text: "Let me look." },
      { type: "tool-call", toolCall: { id: "toolu_01", name: "lookup", input: { query: "cedar", n: 2 } } },
      { type: "tool-call", toolCall: { id: "toolu_02", name: "noargs", input: {} } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it("streams thinking as deltas and keeps thinking blocks whole, with their signature, in place", async () => {
    const signature = "EqQBCkYIARgCIkD+/sig==\u2028end";
    const model = await modelAnswering(
      answer([
        { thinking: ["Let me ", "think."], signature },
        { redacted: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT" },
        { text: ["Answer."] },
      ]),
    );
    const events = await collect(model);
    expect(events.filter((event) => event.type !== "usage")).toEqual([
      { type: "thinking-delta", text: "Let me " },
      { type: "thinking-delta", text: "think." },
      {
        type: "content",
        block: {
          type: "provider",
          provider: "anthropic",
          data: { type: "thinking", thinking: "Let me think.", signature },
        },
      },
      {
        type: "content",
        block: {
          type: "provider",
          provider: "anthropic",
          data: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT" },
        },
      },
      { type: "text-delta", text: "Answer." },
      { type: "finish", stopReason: "end" },
    ]);
  });

  it("reports cache tokens and the cost from the pricing option", async () => {
    const model = await modelAnswering(
      answer([{ text: ["ok"] }], {
        usage: {
          input_tokens: 1_000,
          output_tokens: 500,
          cache_read_input_tokens: 2_000,
          cache_creation_input_tokens: 400,
        },
      }),
      {},
      { pricing: { inputPerMillion: 3, outputPerMillion: 15 } },
    );
    const usage = (await collect(model)).find((event) => event.type === "usage");
    // 1,000 × 3 + 500 × 15 + 2,000 × 0.3 + 400 × 3.75, per million.
    expect(usage).toEqual({
      type: "usage",
      usage: {
        inputTokens: 3_400,
        outputTokens: 500,
        cacheReadTokens: 2_000,
        cacheWriteTokens: 400,
        costUsd: expect.closeTo(0.0126, 10),
      },
    });
  });

  it.each([
    ["end_turn", "end"],
    ["stop_sequence", "end"],
    ["tool_use", "tool-calls"],
    ["max_tokens", "max-tokens"],
    ["model_context_window_exceeded", "max-tokens"],
    ["refusal", "refusal"],
    ["pause_turn", "other"],
  ])("maps the stop reason %s to %s", async (wire, expected) => {
    const model = await modelAnswering(answer([{ text: ["x"] }], { stopReason: wire }));
    expect((await collect(model)).at(-1)).toEqual({ type: "finish", stopReason: expected });
  });

  // Regression: content blocks and a stop_reason already in message_start were ignored, so
  // the answer finished as "other" with its blocks gone.
  it("takes content blocks and a stop_reason carried in message_start as the answer", async () => {
    const events = answer([], { stopReason: "tool_use" });
    const start = startedMessage(events);
    start.stop_reason = "tool_use";
    start.content = [
      { type: "thinking", thinking: "Look it up.", signature: "sig==" },
      { type: "text", text: "Looking.", citations: null },
      { type: "tool_use", id: "toolu_start", name: "lookup", input: { query: "cedar" } },
    ];
    // The stream itself then has no block of its own: only message_delta and message_stop.
    const model = await modelAnswering(events);
    expect((await collect(model)).filter((event) => event.type !== "usage")).toEqual([
      { type: "thinking-delta", text: "Look it up." },
      {
        type: "content",
        block: {
          type: "provider",
          provider: "anthropic",
          data: { type: "thinking", thinking: "Look it up.", signature: "sig==" },
        },
      },
      { type: "text-delta", text: "Looking." },
      { type: "tool-call", toolCall: { id: "toolu_start", name: "lookup", input: { query: "cedar" } } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it("keeps the stop_reason of message_start when message_delta brings none", async () => {
    const events = answer([{ text: ["Done."] }]);
    startedMessage(events).stop_reason = "max_tokens";
    const delta = events.at(-2)?.data as { delta: Record<string, unknown> };
    delta.delta.stop_reason = null;
    expect((await collect(await modelAnswering(events))).at(-1)).toEqual({ type: "finish", stopReason: "max-tokens" });
  });

  // Regression: a repeated message_start ended the call as malformed and the answer was lost.
  it("ignores a repeated message_start of the same message", async () => {
    const events = answer([{ text: ["Hel", "lo"] }]);
    events.splice(4, 0, events[0] as (typeof events)[number]);
    expect(await collect(await modelAnswering(events))).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "usage", usage: { inputTokens: 12, outputTokens: 7 } },
      { type: "finish", stopReason: "end" },
    ]);
  });

  it("ignores event and delta types it does not know", async () => {
    const events = answer([{ text: ["a"] }]);
    events.splice(2, 0, { event: "future_event", data: { type: "future_event", x: 1 } });
    events.splice(5, 0, {
      event: "content_block_delta",
      data: { type: "content_block_delta", index: 0, delta: { type: "future_delta", anything: {} } },
    });
    const model = await modelAnswering(events);
    expect((await collect(model)).map((event) => event.type)).toEqual(["text-delta", "usage", "finish"]);
  });
});

describe("a broken Anthropic stream", () => {
  const expectCode = (events: ModelStreamEvent[], code: string) => {
    const error = finalError(events);
    expect(isModelProviderError(error)).toBe(true);
    expect(error).toMatchObject({ code, provider: "anthropic" });
    assertNoKey(events);
    return error;
  };

  it("ends with model_stream_malformed when the body ends before message_stop", async () => {
    const events = answer([{ text: ["partial"] }]).slice(0, -2);
    const model = await modelAnswering(events);
    const result = await collect(model);
    expect(result[0]).toEqual({ type: "text-delta", text: "partial" });
    expect(expectCode(result, "model_stream_malformed")).toMatchObject({ requestId: REQUEST_ID });
  });

  it("ends with model_stream_malformed on an event that is not JSON", async () => {
    const events = answer([{ text: ["a", "b"] }]);
    events.splice(4, 0, {
      event: "content_block_delta",
      data: '{"type": "content_block_delta", "index": 0, "delta": {',
    });
    expectCode(await collect(await modelAnswering(events)), "model_stream_malformed");
  });

  it("reports a tool call whose input is not JSON as a malformed call, for the Runner to settle", async () => {
    const events = answer([{ tool: { id: "toolu_1", name: "t", json: ['{"a": ', "nope}"] } }], {
      stopReason: "tool_use",
    });
    const result = await collect(await modelAnswering(events));
    expect(result.filter((event) => event.type === "tool-call" || event.type === "finish")).toEqual([
      { type: "tool-call", toolCall: { id: "toolu_1", name: "t", input: {}, malformedInput: '{"a": nope}' } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it("ends with model_stream_malformed on a delta for a block that never started", async () => {
    const events = answer([{ text: ["a"] }]);
    events.splice(2, 1);
    expectCode(await collect(await modelAnswering(events)), "model_stream_malformed");
  });

  it("ends with model_stream_malformed when a second message_start names another message", async () => {
    const events = answer([{ text: ["a", "b"] }]);
    const other = structuredClone(events[0]) as { data: { message: { id: string } } };
    other.data.message.id = "msg_other";
    events.splice(4, 0, other as (typeof events)[number]);
    const result = await collect(await modelAnswering(events));
    expect(result[0]).toEqual({ type: "text-delta", text: "a" });
    expectCode(result, "model_stream_malformed");
  });

  it("ends with model_stream_malformed when message_start carries content that is not a list", async () => {
    const events = answer([{ text: ["a"] }]);
    startedMessage(events).content = { type: "text" };
    expectCode(await collect(await modelAnswering(events)), "model_stream_malformed");
  });

  it("ends with model_stream_malformed when content arrives before message_start", async () => {
    const events = answer([{ text: ["a"] }]).slice(2);
    expectCode(await collect(await modelAnswering(events)), "model_stream_malformed");
  });

  it("ends with model_network when the connection drops mid-stream", async () => {
    const model = await modelAnswering(answer([{ text: ["one", "two", "three"] }]), { disconnectAfter: 4 });
    const result = await collect(model);
    expect(result.filter((event) => event.type === "text-delta")).toEqual([{ type: "text-delta", text: "one" }]);
    expectCode(result, "model_network");
  });

  it.each([
    ["overloaded_error", "model_overloaded", true],
    ["api_error", "model_server_error", true],
    ["rate_limit_error", "model_rate_limited", true],
    ["invalid_request_error", "model_bad_request", false],
    ["something_new_error", "model_server_error", true],
  ])("ends an error event of type %s mid-stream with %s", async (type, code, retryable) => {
    const events = answer([{ text: ["one", "two"] }]);
    events.splice(4, 0, errorEvent(type, "Overloaded"));
    const result = await collect(await modelAnswering(events));
    expect(result[0]).toEqual({ type: "text-delta", text: "one" });
    expect(expectCode(result, code)).toMatchObject({ retryable, requestId: REQUEST_ID });
  });
});
