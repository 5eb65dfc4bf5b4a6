// The raw-SSE readers of the Anthropic and Responses adapters follow the rules of the SDK
// stream iterators they replace: what is skipped, what ends the stream, what becomes an error.
import { APIError as AnthropicApiError } from "@anthropic-ai/sdk";
import { APIError as OpenAiApiError } from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { anthropicSdk } from "../../src/anthropic/sdk.js";
import { messagesEventData, skipped } from "../../src/anthropic/sse-events.js";
import { responsesEventData, streamDone } from "../../src/codex/sse-events.js";
import { openaiSdk } from "../../src/openai-compatible/sdk.js";

const headers = new Headers({ "request-id": "req_a", "x-request-id": "req_o" });

beforeAll(async () => {
  await anthropicSdk.load();
  await openaiSdk.load();
});

describe("Messages stream events", () => {
  it("passes over pings, messages without an event name and messages without data", () => {
    expect(messagesEventData({ event: "ping", data: "{}" }, headers)).toBe(skipped);
    expect(messagesEventData({ event: undefined, data: '{"type":"message_stop"}' }, headers)).toBe(skipped);
    expect(messagesEventData({ event: "message_stop", data: "" }, headers)).toBe(skipped);
  });

  it("parses the data of every other event", () => {
    expect(messagesEventData({ event: "message_stop", data: '{"type":"message_stop"}' }, headers)).toEqual({
      type: "message_stop",
    });
  });

  it("raises an error event as the SDK's status-less APIError with its type and the answer's request id", () => {
    const data = JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    let thrown: unknown;
    try {
      messagesEventData({ event: "error", data }, headers);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AnthropicApiError);
    expect(thrown).toMatchObject({ status: undefined, type: "overloaded_error", requestID: "req_a" });
  });

  it("keeps the text of an error event that is not JSON, and refuses other data that is not JSON", () => {
    expect(() => messagesEventData({ event: "error", data: "boom" }, headers)).toThrow(AnthropicApiError);
    expect(() => messagesEventData({ event: "message_start", data: "{not json" }, headers)).toThrow(SyntaxError);
  });
});

describe("Responses stream events", () => {
  it("ends at [DONE] and parses everything else", () => {
    expect(responsesEventData({ event: undefined, data: "[DONE]" }, headers)).toBe(streamDone);
    expect(responsesEventData({ event: "response.created", data: '{"type":"response.created"}' }, headers)).toEqual({
      type: "response.created",
    });
  });

  it("raises an error event, or data carrying an error, as the SDK's status-less APIError", () => {
    const event = () =>
      responsesEventData(
        { event: "error", data: JSON.stringify({ type: "error", code: "rate_limit_exceeded", message: "slow" }) },
        headers,
      );
    expect(event).toThrow(OpenAiApiError);
    const carried = () =>
      responsesEventData({ event: undefined, data: JSON.stringify({ error: { message: "bad", code: "x" } }) }, headers);
    expect(carried).toThrow(OpenAiApiError);
    try {
      carried();
    } catch (error) {
      expect(error).toMatchObject({ status: undefined, requestID: "req_o", code: "x" });
    }
  });

  it("refuses data that is not JSON with a SyntaxError", () => {
    expect(() => responsesEventData({ event: "response.created", data: "{" }, headers)).toThrow(SyntaxError);
  });
});
