// What openaiCompatible makes of real Chat Completions event streams: text in order, tool calls
// assembled from argument pieces, finish reasons, usage and cost.
import type { ModelStreamEvent } from "@castellan/harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import {
  type FixtureHandler,
  type HttpFixture,
  type SseEvent,
  sendSse,
  startHttpFixture,
} from "../support/http-fixture.js";
import {
  chunk,
  collect,
  done,
  fakeKey,
  modelRequest,
  never,
  textAnswer,
  textOf,
  toolCallAnswer,
  usageChunk,
} from "./chat-fixture.js";

let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) => sendSse(response, textAnswer(["ok"])));
});

afterEach(async () => {
  await fixture.close();
});

function model(options: Partial<Parameters<typeof openaiCompatible>[0]> = {}) {
  return openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model", ...options });
}

async function answer(events: readonly SseEvent[] | FixtureHandler, options = {}): Promise<ModelStreamEvent[]> {
  fixture.handle(typeof events === "function" ? events : (_request, response) => sendSse(response, events));
  return collect(model(options).stream(modelRequest(), { signal: never }));
}

describe("openaiCompatible streams", () => {
  it("streams text deltas in order, then one usage event and finish", async () => {
    const events = await answer(textAnswer(["Hel", "lo, ", "world."], [12, 4]));
    expect(events).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo, " },
      { type: "text-delta", text: "world." },
      { type: "usage", usage: { inputTokens: 12, outputTokens: 4 } },
      { type: "finish", stopReason: "end" },
    ]);
  });

  it("assembles tool calls from argument pieces per index and parses them at the end", async () => {
    const events = await answer(
      toolCallAnswer([
        { id: "call_1", name: "lookup", pieces: ['{"id":', ' "a', 'b"}'] },
        { id: "call_2", name: "status", pieces: [] },
      ]),
    );
    expect(events).toEqual([
      { type: "tool-call", toolCall: { id: "call_1", name: "lookup", input: { id: "ab" } } },
      { type: "tool-call", toolCall: { id: "call_2", name: "status", input: {} } },
      { type: "usage", usage: { inputTokens: 20, outputTokens: 8 } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it("assembles interleaved pieces of parallel tool calls by their index", async () => {
    const events = await answer([
      { data: chunk({ role: "assistant", content: "Checking both." }) },
      {
        data: chunk({
          tool_calls: [
            { index: 0, id: "call_x", type: "function", function: { name: "lookup", arguments: '{"id"' } },
            { index: 1, id: "call_y", type: "function", function: { name: "lookup", arguments: '{"id":' } },
          ],
        }),
      },
      { data: chunk({ tool_calls: [{ index: 1, function: { arguments: '"y"}' } }] }) },
      { data: chunk({ tool_calls: [{ index: 0, function: { arguments: ':"x"}' } }] }) },
      { data: chunk({}, "tool_calls") },
      { data: usageChunk(30, 9) },
      done,
    ]);
    expect(events.filter((event) => event.type !== "usage")).toEqual([
      { type: "text-delta", text: "Checking both." },
      { type: "tool-call", toolCall: { id: "call_x", name: "lookup", input: { id: "x" } } },
      { type: "tool-call", toolCall: { id: "call_y", name: "lookup", input: { id: "y" } } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it("reports a call whose arguments are not JSON as a malformed call, for the Runner to settle", async () => {
    const events = await answer(toolCallAnswer([{ id: "call_1", name: "lookup", pieces: ['{"id": "a'] }]));
    expect(events.some((event) => event.type === "error")).toBe(false);
    expect(events.filter((event) => event.type === "tool-call" || event.type === "finish")).toEqual([
      { type: "tool-call", toolCall: { id: "call_1", name: "lookup", input: {}, malformedInput: '{"id": "a' } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it.each([
    ["length", "max-tokens"],
    ["content_filter", "refusal"],
    ["stop", "end"],
    ["something_new", "other"],
  ])("maps finish_reason %s to %s", async (finishReason, stopReason) => {
    const events = await answer([{ data: chunk({ content: "x" }) }, { data: chunk({}, finishReason) }, done]);
    expect(events.at(-1)).toEqual({ type: "finish", stopReason });
  });

  it("counts cached tokens within the input and prices them apart", async () => {
    const events = await answer(
      [{ data: chunk({ content: "x" }, "stop") }, { data: usageChunk(1_000, 200, 400) }, done],
      {
        pricing: { inputPerMillion: 2, outputPerMillion: 8, cacheReadPerMillion: 0.5 },
      },
    );
    const usage = events.find((event) => event.type === "usage");
    expect(usage).toEqual({
      type: "usage",
      usage: {
        inputTokens: 1_000,
        outputTokens: 200,
        cacheReadTokens: 400,
        costUsd: (600 * 2 + 200 * 8 + 400 * 0.5) / 1e6,
      },
    });
  });

  // Regression: xAI counts reasoning outside completion_tokens, so a call that reasoned for 340
  // tokens and answered in 2 was reported (and priced) as 2 output tokens.
  it.each([
    ["xAI: reasoning above completion_tokens", { completion: 2, reasoning: 340, total: 352 }, 342],
    ["total_tokens counting reasoning apart", { completion: 400, reasoning: 300, total: 710 }, 700],
    ["OpenAI: reasoning within completion_tokens", { completion: 342, reasoning: 340, total: 352 }, 342],
    ["no total, reasoning within completion_tokens", { completion: 342, reasoning: 340 }, 342],
  ])("counts reasoning tokens once in outputTokens and the cost (%s)", async (_name, counts, output) => {
    const usage = {
      ...usageChunk(10, counts.completion),
      usage: {
        prompt_tokens: 10,
        completion_tokens: counts.completion,
        ...("total" in counts ? { total_tokens: counts.total } : {}),
        completion_tokens_details: { reasoning_tokens: counts.reasoning },
      },
    };
    const events = await answer([{ data: chunk({ content: "ok" }, "stop") }, { data: usage }, done], {
      pricing: { inputPerMillion: 1, outputPerMillion: 10 },
    });
    expect(events.find((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: { inputTokens: 10, outputTokens: output, costUsd: (10 * 1 + output * 10) / 1e6 },
    });
  });

  it("streams reasoning as thinking deltas and a refusal as text with stop reason refusal", async () => {
    const events = await answer([
      { data: chunk({ reasoning_content: "Think." }) },
      { data: chunk({ reasoning: " More." }) },
      { data: chunk({ refusal: "I can't help with that." }) },
      { data: chunk({}, "stop") },
      done,
    ]);
    expect(events).toEqual([
      { type: "thinking-delta", text: "Think." },
      { type: "thinking-delta", text: " More." },
      { type: "text-delta", text: "I can't help with that." },
      { type: "finish", stopReason: "refusal" },
    ]);
  });

  it("reads tool calls when the server says stop, and skips SSE comments and unknown fields", async () => {
    const events = await answer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": keep-alive\n\n");
      response.write(`id: 1\ndata: ${JSON.stringify(chunk({ content: "a" }))}\r\n\r\n`);
      response.write(
        `data: ${JSON.stringify(chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "status", arguments: "{}" } }] }))}\n\n`,
      );
      response.write(`data: ${JSON.stringify(chunk({}, "stop"))}\n\n`);
      response.end("data: [DONE]\n\n");
    });
    expect(events).toEqual([
      { type: "text-delta", text: "a" },
      { type: "tool-call", toolCall: { id: "call_1", name: "status", input: {} } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });

  it("decodes events split across network chunks, mid-line and mid-character", async () => {
    const body = `data: ${JSON.stringify(chunk({ content: "héllo ✓" }))}\n\ndata: ${JSON.stringify(chunk({}, "stop"))}\n\ndata: [DONE]\n\n`;
    const bytes = Buffer.from(body, "utf8");
    const events = await answer(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (let offset = 0; offset < bytes.length; offset += 7) {
        response.write(bytes.subarray(offset, offset + 7));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      response.end();
    });
    expect(textOf(events)).toBe("héllo ✓");
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
  });

  it("omits the usage event when the server reports none", async () => {
    const events = await answer([{ data: chunk({ content: "x" }) }, { data: chunk({}, "stop") }, done]);
    expect(events.map((event) => event.type)).toEqual(["text-delta", "finish"]);
  });
});
