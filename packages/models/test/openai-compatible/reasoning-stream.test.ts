// What the compatible stream makes of OpenRouter's `reasoning_details`: pieces assembled per
// index across chunks into one opaque provider block placed before the text it precedes,
// reasoning text still streamed as thinking, pieces arriving after the text kept in a second
// block that is joined when sent back, and malformed details ending the stream.
import type { ModelStreamEvent } from "@castellan/harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { type HttpFixture, type SseEvent, sendSse, startHttpFixture } from "../support/http-fixture.js";
import {
  chatRequests,
  chunk,
  collect,
  done,
  errorOf,
  fakeKey,
  modelRequest,
  never,
  textAnswer,
  toolCallAnswer,
  usageChunk,
} from "./chat-fixture.js";
import { claudeDetails, claudeReasoning, reasoningThen } from "./reasoning-fixture.js";

let fixture: HttpFixture;
let answers: SseEvent[][];

beforeEach(async () => {
  answers = [];
  fixture = await startHttpFixture((_request, response) => sendSse(response, answers.shift() ?? textAnswer(["ok"])));
});

afterEach(async () => {
  await fixture.close();
});

function model() {
  return openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model", maxRetries: 0 });
}

async function answer(events: SseEvent[]): Promise<ModelStreamEvent[]> {
  answers.push(events);
  return collect(model().stream(modelRequest(), { signal: never }));
}

const SIGNATURE = "EqQBCkYIBRgCIkB/+sig==";

describe("reasoning_details in the compatible stream", () => {
  it("assembles the pieces across chunks into one provider block before the text, streaming the reasoning as thinking", async () => {
    const pieces = ["The user wants ", "the weather."];
    const events = await answer(
      reasoningThen(
        claudeReasoning(pieces, SIGNATURE, "EmwKAhgBEgy3va3p=="),
        toolCallAnswer([{ id: "call_1", name: "weather", pieces: ['{"city":', '"Oslo"}'] }]),
      ),
    );
    expect(events).toEqual([
      { type: "thinking-delta", text: "The user wants " },
      { type: "thinking-delta", text: "the weather." },
      {
        type: "content",
        block: {
          type: "provider",
          provider: "openai-compatible",
          data: { reasoning_details: claudeDetails(pieces, SIGNATURE, "EmwKAhgBEgy3va3p==") },
        },
      },
      { type: "tool-call", toolCall: { id: "call_1", name: "weather", input: { city: "Oslo" } } },
      { type: "usage", usage: { inputTokens: 20, outputTokens: 8 } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it("joins interleaved pieces by their index and keeps entry types it does not know", async () => {
    const format = "openai-responses-v1";
    const events = await answer([
      { data: chunk({ role: "assistant", content: "" }) },
      {
        data: chunk({
          reasoning_details: [
            { type: "reasoning.summary", summary: "**Plan**", id: "rs_1", format, index: 0 },
            { type: "reasoning.encrypted", data: "gAAAA", id: "rs_1", format, index: 1 },
          ],
        }),
      },
      { data: chunk({ reasoning_details: [{ type: "reasoning.summary", summary: " first", format, index: 0 }] }) },
      { data: chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "BBB==", format, index: 1 }] }) },
      { data: chunk({ reasoning_details: [{ type: "reasoning.future", blob: { nested: [1] }, index: 2 }] }) },
      { data: chunk({ content: "Done." }) },
      { data: chunk({}, "stop") },
      done,
    ]);
    expect(events.slice(0, 2)).toEqual([
      {
        type: "content",
        block: {
          type: "provider",
          provider: "openai-compatible",
          data: {
            reasoning_details: [
              { type: "reasoning.summary", summary: "**Plan** first", id: "rs_1", format, index: 0 },
              { type: "reasoning.encrypted", data: "gAAAABBB==", id: "rs_1", format, index: 1 },
              { type: "reasoning.future", blob: { nested: [1] }, index: 2 },
            ],
          },
        },
      },
      { type: "text-delta", text: "Done." },
    ]);
  });

  it("joins consecutive text pieces that come without an index", async () => {
    const events = await answer([
      { data: chunk({ role: "assistant", content: "" }) },
      { data: chunk({ reasoning_details: [{ type: "reasoning.text", text: "Step 1. " }] }) },
      { data: chunk({ reasoning_details: [{ type: "reasoning.text", text: "Step 2.", signature: "s" }] }) },
      { data: chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "x" }] }) },
      { data: chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "y" }] }) },
      { data: chunk({}, "stop") },
      done,
    ]);
    expect(events[0]).toEqual({
      type: "content",
      block: {
        type: "provider",
        provider: "openai-compatible",
        data: {
          reasoning_details: [
            { type: "reasoning.text", text: "Step 1. Step 2.", signature: "s" },
            { type: "reasoning.encrypted", data: "x" },
            { type: "reasoning.encrypted", data: "y" },
          ],
        },
      },
    });
    expect(events.slice(1)).toEqual([{ type: "finish", stopReason: "end" }]);
  });

  it("puts a signature that arrives after the text in a second block, and sends both back as one entry", async () => {
    const format = "anthropic-claude-v1";
    const events = await answer([
      { data: chunk({ role: "assistant", content: "" }) },
      {
        data: chunk({
          reasoning: "Think",
          reasoning_details: [{ type: "reasoning.text", text: "Think", format, index: 0 }],
        }),
      },
      { data: chunk({ content: "Hello!" }) },
      {
        data: chunk({ reasoning_details: [{ type: "reasoning.text", text: "", format, index: 0, signature: "late" }] }),
      },
      { data: chunk({ content: " Bye." }) },
      { data: chunk({}, "stop") },
      { data: usageChunk(5, 3) },
      done,
    ]);
    const block = (details: unknown[]) => ({
      type: "content",
      block: { type: "provider", provider: "openai-compatible", data: { reasoning_details: details } },
    });
    expect(events).toEqual([
      { type: "thinking-delta", text: "Think" },
      block([{ type: "reasoning.text", text: "Think", format, index: 0 }]),
      { type: "text-delta", text: "Hello!" },
      // In its place: before the text that follows it.
      block([{ type: "reasoning.text", text: "", format, index: 0, signature: "late" }]),
      { type: "text-delta", text: " Bye." },
      { type: "usage", usage: { inputTokens: 5, outputTokens: 3 } },
      { type: "finish", stopReason: "end" },
    ]);

    const first = events[1] as Extract<ModelStreamEvent, { type: "content" }>;
    const late = events[3] as Extract<ModelStreamEvent, { type: "content" }>;
    await collect(
      model().stream(
        modelRequest({
          messages: [
            { role: "user", content: [{ type: "text", text: "Hi" }] },
            {
              role: "assistant",
              content: [first.block, { type: "text", text: "Hello!" }, late.block, { type: "text", text: " Bye." }],
              toolCalls: [],
            },
            { role: "user", content: [{ type: "text", text: "Again" }] },
          ],
        }),
        { signal: never },
      ),
    );
    expect(chatRequests(fixture.requests)[1]?.messages[1]).toEqual({
      role: "assistant",
      content: "Hello! Bye.",
      reasoning_details: [{ type: "reasoning.text", text: "Think", format, index: 0, signature: "late" }],
    });
  });

  it.each([
    ["a value that is not a list", { type: "reasoning.text", text: "x" }, "reasoning_details that are not a list"],
    ["an entry that is not an object", [42], "entry that is not an object"],
    ["an entry without a type", [{ text: "x", index: 0 }], "entry without a type"],
    ["a negative index", [{ type: "reasoning.text", text: "x", index: -1 }], "index is not a non-negative integer"],
    ["a fractional index", [{ type: "reasoning.text", text: "x", index: 0.5 }], "index is not a non-negative integer"],
    ["text that is not text", [{ type: "reasoning.text", text: 7, index: 0 }], "text is not text"],
    ["a signature that is not text", [{ type: "reasoning.text", signature: {}, index: 0 }], "signature is not text"],
  ])("ends with model_stream_malformed for %s", async (_name, details, message) => {
    const events = await answer([
      { data: chunk({ role: "assistant", content: "" }) },
      { data: chunk({ reasoning_details: details }) },
      { data: chunk({ content: "never seen" }) },
      { data: chunk({}, "stop") },
      done,
    ]);
    const error = errorOf(events);
    expect(error.code).toBe("model_stream_malformed");
    expect(error.message).toContain(message);
    expect(events.some((event) => event.type === "text-delta" || event.type === "content")).toBe(false);
    expect(chatRequests(fixture.requests)).toHaveLength(1);
  });

  it("ends with model_stream_malformed when pieces of one index change type", async () => {
    const events = await answer([
      { data: chunk({ reasoning_details: [{ type: "reasoning.text", text: "a", index: 0 }] }) },
      { data: chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "b", index: 0 }] }) },
      { data: chunk({}, "stop") },
      done,
    ]);
    const error = errorOf(events);
    expect(error.code).toBe("model_stream_malformed");
    expect(error.message).toContain("pieces of reasoning_details entry 0 with different types");
  });

  it("ignores null reasoning_details and streams DeepSeek's reasoning_content as thinking only", async () => {
    const events = await answer([
      { data: chunk({ role: "assistant", content: "", reasoning_content: "Hmm.", reasoning_details: null }) },
      { data: chunk({ content: "Yes." }) },
      { data: chunk({}, "stop") },
      done,
    ]);
    expect(events).toEqual([
      { type: "thinking-delta", text: "Hmm." },
      { type: "text-delta", text: "Yes." },
      { type: "finish", stopReason: "end" },
    ]);
  });
});
