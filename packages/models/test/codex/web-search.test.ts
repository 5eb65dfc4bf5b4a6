// Hosted web search on the codex binding, against the loopback server speaking the Responses
// API's SSE: the `web_search` tool and the sources include, refusals before any request, the
// `hosted-tool` events of `web_search_call` items in stream order, and the items sent back
// unchanged on the next turn, also after a restore from saved JSON.
import { type HostedToolSpec, isModelProviderError, type Message, type ModelRequest } from "@castellan/harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CodexOptions, codex } from "../../src/codex/index.js";
import { type HttpFixture, type SseEvent, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { modelRequest } from "../support/request.js";
import { assemble } from "../support/stream.js";
import { collect, errorOf, FAKE_KEY, ResponsesStream } from "./support/responses-sse.js";

const webSearch: HostedToolSpec = { name: "web_search", hosted: { kind: "web-search" } };
const ask = (overrides: Partial<ModelRequest> = {}) =>
  modelRequest({
    messages: [{ role: "user", content: [{ type: "text", text: "When did Cedar 2 ship?" }] }],
    ...overrides,
  });

/** A search action as the API reports it with `include: ["web_search_call.action.sources"]`. */
const searchAction = {
  type: "search",
  query: "cedar 2 release date",
  queries: ["cedar 2 release date", "cedar 2.0 changelog"],
  sources: [
    { type: "url", url: "https://cedar.example/blog/2-0" },
    { type: "url", url: "https://news.example/cedar", title: "Cedar news" },
    // A real-time feed: named, without a URL.
    { type: "api", name: "oai-news" },
  ],
};

let fixture: HttpFixture;
let answers: SseEvent[][];
beforeEach(async () => {
  answers = [];
  fixture = await startHttpFixture((_request, response) =>
    sendSse(response, answers.shift() ?? new ResponsesStream().text(["ok"]).completed()),
  );
});
afterEach(() => fixture.close());

function model(options: Partial<CodexOptions> = {}) {
  return codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url, maxRetries: 0, ...options });
}

const run = (request: ModelRequest, options: Partial<CodexOptions> = {}) =>
  collect(model(options).stream(request, { signal: new AbortController().signal }));

const bodies = () => fixture.requests.map((recorded) => recorded.json as Record<string, unknown>);

describe("the codex web search request", () => {
  it("sends web_search and asks for its sources only when a web-search hosted tool is declared", async () => {
    await run(ask());
    await run(ask({ hostedTools: [webSearch] }));
    await run(ask({ hostedTools: [webSearch] }), { reasoning: false });
    await run(ask(), { reasoning: false });
    // Two web searches still ask for the sources once.
    await run(ask({ hostedTools: [webSearch, { name: "news", hosted: { kind: "web-search" } }] }));
    const [plain, searching, noReasoning, bare, twice] = bodies();
    expect(plain?.tools).toBeUndefined();
    expect(plain?.include).toEqual(["reasoning.encrypted_content"]);
    expect(searching?.tools).toEqual([{ type: "web_search" }]);
    expect(searching?.include).toEqual(["reasoning.encrypted_content", "web_search_call.action.sources"]);
    expect(noReasoning?.include).toEqual(["web_search_call.action.sources"]);
    expect(noReasoning).not.toHaveProperty("reasoning");
    expect(bare).not.toHaveProperty("include");
    expect(twice?.include).toEqual(["reasoning.encrypted_content", "web_search_call.action.sources"]);
  });

  it("keeps the reasoning parameters beside the include", async () => {
    await run(ask({ hostedTools: [webSearch] }), { reasoning: { effort: "low", summary: "auto" } });
    expect(bodies()[0]).toMatchObject({
      include: ["reasoning.encrypted_content", "web_search_call.action.sources"],
      reasoning: { effort: "low", summary: "auto" },
    });
  });

  it.each([
    ["blockedDomains", { blockedDomains: ["spam.example"] }],
    ["maxUses", { maxUses: 2 }],
    ["an unknown option", { userLocation: "Oslo" }],
    ["a malformed allowedDomains", { allowedDomains: "cedar.example" }],
    ["a malformed searchContextSize", { searchContextSize: "huge" }],
  ])("refuses %s with model_unsupported before any request", async (_what, options) => {
    const events = await run(
      ask({ hostedTools: [{ name: "web_search", hosted: { kind: "web-search", ...options } }] }),
    );
    expect(events).toHaveLength(1);
    expect(isModelProviderError(errorOf(events), "model_unsupported")).toBe(true);
    expect(fixture.requests).toHaveLength(0);
  });
});

describe("the codex web search stream", () => {
  it("emits started when the call is added and completed with queries and sources when it is done", async () => {
    const stream = new ResponsesStream().text(["Let me search."]).searchCall(searchAction).text(["It shipped in May."]);
    answers.push(stream.completed({ input: 900, output: 40 }));
    const events = await run(ask({ hostedTools: [webSearch] }));
    expect(events).toEqual([
      { type: "text-delta", text: "Let me search." },
      { type: "hosted-tool", callId: "ws_1", kind: "web-search", status: "started", queries: [], sources: [] },
      { type: "content", block: { type: "provider", provider: "openai-responses", data: stream.output[1] } },
      {
        type: "hosted-tool",
        callId: "ws_1",
        kind: "web-search",
        status: "completed",
        queries: ["cedar 2 release date", "cedar 2.0 changelog"],
        sources: [
          { url: "https://cedar.example/blog/2-0" },
          { url: "https://news.example/cedar", title: "Cedar news" },
        ],
      },
      { type: "text-delta", text: "It shipped in May." },
      { type: "usage", usage: { inputTokens: 900, outputTokens: 40 } },
      { type: "finish", stopReason: "end" },
    ]);
  });

  it("reports a failed call as failed, and each status once per call", async () => {
    const stream = new ResponsesStream()
      .searchCall({ type: "search", query: "cedar" }, { id: "ws_a", status: "failed" })
      // Progress events without the added item: the first of them is the start.
      .searchCall({ type: "search", query: "cedar 2" }, { id: "ws_b", added: false })
      // Only the done item: its start comes with it.
      .searchCall({ type: "search", query: "cedar 3" }, { id: "ws_c", added: false, progress: false })
      .text(["No luck."]);
    answers.push(stream.completed());
    const events = await run(ask({ hostedTools: [webSearch] }));
    const hosted = events.filter((event) => event.type === "hosted-tool");
    expect(hosted.map((event) => [event.callId, event.status, event.queries])).toEqual([
      ["ws_a", "started", []],
      ["ws_a", "failed", ["cedar"]],
      ["ws_b", "started", []],
      ["ws_b", "completed", ["cedar 2"]],
      ["ws_c", "started", ["cedar 3"]],
      ["ws_c", "completed", ["cedar 3"]],
    ]);
    expect(hosted.every((event) => event.errorCode === undefined && event.sources.length === 0)).toBe(true);
    // Each done item is still kept whole, in place, before its outcome.
    expect(events.map((event) => (event.type === "hosted-tool" ? `${event.status}` : event.type))).toEqual([
      "started",
      "content",
      "failed",
      "started",
      "content",
      "completed",
      "content",
      "started",
      "completed",
      "text-delta",
      "usage",
      "finish",
    ]);
  });

  it.each([
    ["in the same process", false],
    ["after a restore from saved JSON", true],
  ])("sends the web_search_call item back unchanged on the next turn %s", async (_when, restore) => {
    const stream = new ResponsesStream().searchCall(searchAction, { id: "ws_9" }).text(["It shipped in May."]);
    answers.push(stream.completed());
    const first = await run(ask({ hostedTools: [webSearch] }));
    let messages: Message[] = [
      ...ask().messages,
      assemble(first),
      { role: "user", content: [{ type: "text", text: "Thanks." }] },
    ];
    if (restore) messages = JSON.parse(JSON.stringify(messages)) as Message[];
    await run(ask({ messages, hostedTools: [webSearch] }));
    const input = bodies().at(-1)?.input as Record<string, unknown>[];
    const sent = input.find((item) => item.type === "web_search_call");
    expect(JSON.stringify(sent)).toBe(JSON.stringify(stream.output[0]));
    expect(input.map((item) => item.type)).toEqual(["message", "web_search_call", "message", "message"]);
  });
});
