// Provider-run calls of a hosted web search through the aiSdk binding: `tool-call` /
// `tool-result` parts with `providerExecuted`, as the AI SDK's providers stream them, become
// `hosted-tool` events beside the provider blocks they already were.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { ModelRequest, ModelStreamEvent } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { describe, expect, it } from "vitest";
import { collect, fakeLanguageModel, finish, textParts } from "./support/fake-language-model.js";

const ask: ModelRequest = {
  system: "",
  context: "",
  messages: [{ role: "user", content: [{ type: "text", text: "When did Cedar 2 ship?" }] }],
  tools: [],
  hostedTools: [{ name: "search", hosted: { kind: "web-search" } }],
};
/** The binding maps the kind to a provider tool; the model names its parts after the tool sent ("search"). */
const options = { providerTools: { "web-search": { id: "anthropic.web_search_20250305" as const } } };

async function streamParts(parts: readonly LanguageModelV4StreamPart[], request: ModelRequest = ask) {
  const model = fakeLanguageModel([{ parts }]);
  const events = await collect(aiSdk(model, options).stream(request, { signal: new AbortController().signal }));
  return { events, call: model.calls[0] };
}

const hostedOnly = (events: readonly ModelStreamEvent[]) => events.filter((event) => event.type === "hosted-tool");

/** The result parts of a search as @ai-sdk/anthropic maps a web_search_tool_result. */
const anthropicResult = [
  {
    type: "web_search_result",
    url: "https://cedar.example/blog/2-0",
    title: "Cedar 2.0 released",
    pageAge: "May 12, 2026",
    encryptedContent: "EqgfPAGE-CONTENT",
  },
  { type: "web_search_result", url: "https://news.example/cedar", title: null, encryptedContent: "EqZZ" },
];

describe("aiSdk hosted-tool events", () => {
  it("reports a provider-run search: started on the call, completed with sources after its source parts", async () => {
    const { events, call } = await streamParts([
      { type: "stream-start", warnings: [] },
      ...textParts("t1", "Let me search."),
      {
        type: "tool-call",
        toolCallId: "srvtoolu_1",
        toolName: "search",
        input: '{"query":"cedar 2 release"}',
        providerExecuted: true,
      },
      { type: "tool-result", toolCallId: "srvtoolu_1", toolName: "search", result: anthropicResult },
      { type: "source", sourceType: "url", id: "s1", url: "https://cedar.example/blog/2-0", title: "Cedar 2.0" },
      { type: "source", sourceType: "url", id: "s2", url: "https://docs.example/cedar", title: "Docs" },
      { type: "source", sourceType: "document", id: "s3", mediaType: "text/plain", title: "A document" },
      ...textParts("t2", "It shipped in May."),
      finish("stop"),
    ]);
    expect(call?.tools).toEqual([{ type: "provider", id: "anthropic.web_search_20250305", name: "search", args: {} }]);
    const kinds = events.map((event) =>
      event.type === "content" && event.block.type === "provider"
        ? (event.block.data as { part: string }).part
        : event.type === "hosted-tool"
          ? `hosted ${event.status}`
          : event.type,
    );
    expect(kinds).toEqual([
      "text-delta",
      "tool-call",
      "hosted started",
      "tool-result",
      "source",
      "source",
      "source",
      "hosted completed",
      "text-delta",
      "usage",
      "finish",
    ]);
    expect(hostedOnly(events)).toEqual([
      {
        type: "hosted-tool",
        callId: "srvtoolu_1",
        kind: "web-search",
        status: "started",
        queries: ["cedar 2 release"],
        sources: [],
      },
      {
        type: "hosted-tool",
        callId: "srvtoolu_1",
        kind: "web-search",
        status: "completed",
        queries: ["cedar 2 release"],
        // The result's own entries first; a source part adds only a URL not already there.
        sources: [
          { url: "https://cedar.example/blog/2-0", title: "Cedar 2.0 released" },
          { url: "https://news.example/cedar" },
          { url: "https://docs.example/cedar", title: "Docs" },
        ],
      },
    ]);
    expect(JSON.stringify(hostedOnly(events))).not.toMatch(/PAGE-CONTENT|EqZZ|pageAge/);
  });

  it("reports an error result as failed with its error code", async () => {
    const { events } = await streamParts([
      {
        type: "tool-call",
        toolCallId: "srvtoolu_2",
        toolName: "search",
        input: '{"query":"x"}',
        providerExecuted: true,
      },
      {
        type: "tool-result",
        toolCallId: "srvtoolu_2",
        toolName: "search",
        result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
        isError: true,
      },
      finish("stop"),
    ]);
    expect(hostedOnly(events).at(-1)).toEqual({
      type: "hosted-tool",
      callId: "srvtoolu_2",
      kind: "web-search",
      status: "failed",
      queries: ["x"],
      sources: [],
      errorCode: "max_uses_exceeded",
    });
    // Released before the usage and finish.
    expect(events.slice(-3).map((event) => event.type)).toEqual(["hosted-tool", "usage", "finish"]);
  });

  it("takes the queries and sources of an OpenAI-style result, and accepts the provider's own tool name", async () => {
    const { events } = await streamParts([
      { type: "tool-call", toolCallId: "ws_1", toolName: "web_search", input: "{}", providerExecuted: true },
      {
        type: "tool-result",
        toolCallId: "ws_1",
        toolName: "web_search",
        result: {
          action: { type: "search", query: "cedar", queries: ["cedar", "cedar 2"] },
          sources: [
            { type: "url", url: "https://cedar.example" },
            { type: "api", name: "oai-news" },
          ],
        },
      },
      finish("stop"),
    ]);
    expect(hostedOnly(events).map(({ status, queries, sources }) => ({ status, queries, sources }))).toEqual([
      { status: "started", queries: [], sources: [] },
      { status: "completed", queries: ["cedar", "cedar 2"], sources: [{ url: "https://cedar.example" }] },
    ]);
  });

  it("never throws on shapes it does not know, and reports nothing for calls of undeclared tools", async () => {
    const { events } = await streamParts([
      // A result without its call, of a shape it does not know.
      { type: "tool-result", toolCallId: "a", toolName: "search", result: "plain text" },
      { type: "tool-call", toolCallId: "b", toolName: "search", input: "[1,2]", providerExecuted: true },
      { type: "tool-result", toolCallId: "b", toolName: "search", result: 42 },
      { type: "tool-call", toolCallId: "c", toolName: "code", input: "{}", providerExecuted: true },
      { type: "tool-result", toolCallId: "c", toolName: "code", result: { stdout: "1" } },
      finish("stop"),
    ]);
    expect(
      hostedOnly(events).map(({ callId, status, queries, sources }) => [callId, status, queries, sources]),
    ).toEqual([
      ["a", "started", [], []],
      ["a", "completed", [], []],
      ["b", "started", [], []],
      ["b", "completed", [], []],
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });

    // Without a declared web-search tool, provider-run calls stay provider blocks only.
    const plain = await streamParts(
      [
        { type: "tool-call", toolCallId: "d", toolName: "web_search", input: "{}", providerExecuted: true },
        { type: "tool-result", toolCallId: "d", toolName: "web_search", result: [] },
        finish("stop"),
      ],
      { ...ask, hostedTools: [] },
    );
    expect(hostedOnly(plain.events)).toEqual([]);
  });
});
