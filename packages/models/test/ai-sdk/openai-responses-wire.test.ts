// The adapter around @ai-sdk/openai's Responses model, against a loopback server speaking the
// Responses streaming format: reasoning kept as an opaque block and sent back in place, a
// function call round trip with an image in its result, and hosted web search.
import { createOpenAI } from "@ai-sdk/openai";
import type { AssistantMessage, ContentBlock, ModelRequest, ModelStreamEvent, ToolCall } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, type SseEvent, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { collect } from "./support/fake-language-model.js";

const KEY = "sk-test-responses-KEY-55d1";
const PNG = "iVBORw0KGgo=";
let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) =>
    sendJson(response, 500, { error: { message: "no handler" } }),
  );
});
afterEach(async () => {
  await fixture.close();
});

function event(type: string, body: Record<string, unknown>): SseEvent {
  return { event: type, data: { type, ...body } };
}

const created = event("response.created", {
  response: { id: "resp_1", created_at: 1_700_000_000, model: "gpt-5-mini" },
});

function completed(input: number, output: number): SseEvent {
  return event("response.completed", {
    response: {
      incomplete_details: null,
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: 4 },
      },
    },
  });
}

/** Reasoning with a summary and encrypted content, then a function call. */
const reasoningThenCall: SseEvent[] = [
  created,
  event("response.output_item.added", {
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", encrypted_content: null },
  }),
  event("response.reasoning_summary_part.added", { item_id: "rs_1", output_index: 0, summary_index: 0 }),
  event("response.reasoning_summary_text.delta", {
    item_id: "rs_1",
    output_index: 0,
    summary_index: 0,
    delta: "Need the ",
  }),
  event("response.reasoning_summary_text.delta", {
    item_id: "rs_1",
    output_index: 0,
    summary_index: 0,
    delta: "weather.",
  }),
  event("response.reasoning_summary_part.done", { item_id: "rs_1", output_index: 0, summary_index: 0 }),
  event("response.output_item.done", {
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", encrypted_content: "ENCRYPTED-REASONING" },
  }),
  event("response.output_item.added", {
    output_index: 1,
    item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "weather", arguments: "" },
  }),
  event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 1, delta: '{"city":' }),
  event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 1, delta: '"Oslo"}' }),
  event("response.output_item.done", {
    output_index: 1,
    item: {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name: "weather",
      arguments: '{"city":"Oslo"}',
      status: "completed",
    },
  }),
  completed(30, 12),
];

const answer: SseEvent[] = [
  created,
  event("response.output_item.added", { output_index: 0, item: { type: "message", id: "msg_2" } }),
  event("response.output_text.delta", { item_id: "msg_2", output_index: 0, delta: "12°C in Oslo." }),
  event("response.output_item.done", { output_index: 0, item: { type: "message", id: "msg_2" } }),
  completed(60, 6),
];

function assemble(events: readonly ModelStreamEvent[]): AssistantMessage {
  const content: ContentBlock[] = [];
  const toolCalls: ToolCall[] = [];
  let text = "";
  for (const streamed of events) {
    if (streamed.type === "text-delta") text += streamed.text;
    else if (streamed.type === "content") {
      if (text) content.push({ type: "text", text });
      text = "";
      content.push(streamed.block);
    } else if (streamed.type === "tool-call") toolCalls.push(streamed.toolCall);
  }
  if (text) content.push({ type: "text", text });
  return { role: "assistant", content, toolCalls };
}

const ask: ModelRequest = {
  system: "Use tools.",
  context: "",
  messages: [{ role: "user", content: [{ type: "text", text: "Weather in Oslo?" }] }],
  tools: [
    {
      name: "weather",
      description: "Current weather.",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
  hostedTools: [],
};

describe("aiSdk over @ai-sdk/openai (responses)", () => {
  it("keeps reasoning as an opaque block and sends it back in place, with the call and its image result", async () => {
    const model = aiSdk(createOpenAI({ baseURL: fixture.url, apiKey: KEY }).responses("gpt-5-mini"), {
      providerOptions: { openai: { store: false, include: ["reasoning.encrypted_content"] } },
    });
    const signal = new AbortController().signal;
    fixture.handle((_request, response) => sendSse(response, reasoningThenCall));
    const first = await collect(model.stream(ask, { signal }));
    expect(first.filter((streamed) => streamed.type === "thinking-delta").map((streamed) => streamed.text)).toEqual([
      "Need the ",
      "weather.",
    ]);
    const message = JSON.parse(JSON.stringify(assemble(first))) as AssistantMessage;
    expect(message.content).toEqual([
      {
        type: "provider",
        provider: "ai-sdk",
        data: {
          part: "reasoning",
          text: "Need the weather.",
          metadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: "ENCRYPTED-REASONING" } },
        },
      },
      {
        type: "provider",
        provider: "ai-sdk",
        data: { part: "tool-call-metadata", toolCallId: "call_1", metadata: { openai: { itemId: "fc_1" } } },
      },
    ]);
    expect(message.toolCalls).toEqual([{ id: "call_1", name: "weather", input: { city: "Oslo" } }]);
    expect(first.at(-1)).toEqual({ type: "finish", stopReason: "tool-calls" });

    fixture.handle((_request, response) => sendSse(response, answer));
    const second = await collect(
      model.stream(
        {
          ...ask,
          messages: [
            ...ask.messages,
            message,
            {
              role: "tool",
              toolCallId: "call_1",
              toolName: "weather",
              content: [
                { type: "text", text: "12°C" },
                { type: "image", mediaType: "image/png", data: PNG },
              ],
              isError: false,
            },
          ],
        },
        { signal },
      ),
    );
    expect(second.filter((streamed) => streamed.type === "text-delta")).toEqual([
      { type: "text-delta", text: "12°C in Oslo." },
    ]);
    const body = fixture.requests[1]?.json as { input: unknown[]; store: boolean };
    expect(body.store).toBe(false);
    expect(body.input.slice(2)).toEqual([
      {
        type: "reasoning",
        id: "rs_1",
        encrypted_content: "ENCRYPTED-REASONING",
        summary: [{ type: "summary_text", text: "Need the weather." }],
      },
      { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Oslo"}' },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "12°C" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
        ],
      },
    ]);
    expect(JSON.stringify([first, second])).not.toContain(KEY);
  });

  it("sends web-search as OpenAI's hosted web search and keeps its call as a provider block", async () => {
    const model = aiSdk(createOpenAI({ baseURL: fixture.url, apiKey: KEY }).responses("gpt-5-mini"));
    fixture.handle((_request, response) =>
      sendSse(response, [
        created,
        event("response.output_item.added", {
          output_index: 0,
          item: { type: "web_search_call", id: "ws_1", status: "in_progress" },
        }),
        event("response.output_item.done", {
          output_index: 0,
          item: {
            type: "web_search_call",
            id: "ws_1",
            status: "completed",
            action: {
              type: "search",
              query: "oslo weather",
              sources: [
                { type: "url", url: "https://weather.example/oslo" },
                { type: "url", url: "https://yr.example/oslo" },
              ],
            },
          },
        }),
        event("response.output_item.added", { output_index: 1, item: { type: "message", id: "msg_1" } }),
        event("response.output_text.delta", { item_id: "msg_1", output_index: 1, delta: "Sunny." }),
        event("response.output_item.done", { output_index: 1, item: { type: "message", id: "msg_1" } }),
        completed(40, 3),
      ]),
    );
    const events = await collect(
      model.stream(
        { ...ask, tools: [], hostedTools: [{ name: "web_search", hosted: { kind: "web-search" } }] },
        {
          signal: new AbortController().signal,
        },
      ),
    );
    const body = fixture.requests[0]?.json as { tools: unknown[] };
    expect(body.tools).toEqual([expect.objectContaining({ type: "web_search" })]);
    const blocks = assemble(events).content.map((block) =>
      block.type === "provider" ? (block.data as { part: string }).part : block.type,
    );
    expect(blocks).toEqual(["tool-call", "tool-result", "source", "source", "text", "metadata"]);
    // The provider's call and result parts are also reported as the hosted search, before the text.
    const sources = [{ url: "https://weather.example/oslo" }, { url: "https://yr.example/oslo" }];
    expect(events.filter((streamed) => streamed.type === "hosted-tool" || streamed.type === "text-delta")).toEqual([
      { type: "hosted-tool", callId: "ws_1", kind: "web-search", status: "started", queries: [], sources: [] },
      {
        type: "hosted-tool",
        callId: "ws_1",
        kind: "web-search",
        status: "completed",
        queries: ["oslo weather"],
        sources,
      },
      { type: "text-delta", text: "Sunny." },
    ]);
    expect(events.filter((streamed) => streamed.type === "tool-call")).toEqual([]);
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
  });
});
