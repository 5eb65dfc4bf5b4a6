// Hosted web search on the Anthropic binding, against the loopback server speaking the
// Messages API's SSE: the `web_search_20250305` server tool and its options, refusals before
// any request, the `server_tool_use` / `web_search_tool_result` blocks and cited text blocks
// as they stream, the `hosted-tool` events, `webSearchRequests`, and the blocks sent back
// byte for byte on the next turn, also after a restore from saved JSON.
import {
  type HostedToolSpec,
  isModelProviderError,
  type Message,
  type ModelStreamEvent,
  textOf,
} from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../../src/anthropic/messages.js";
import { type HttpFixture, type SseEvent, startHttpFixture } from "../support/http-fixture.ts";
import { assemble } from "../support/stream.ts";
import {
  answer,
  assertNoKey,
  collect,
  FAKE_KEY,
  finalError,
  MODEL,
  messageBodies,
  request,
  type ScriptedBlock,
  sendAnswer,
} from "./support/wire.ts";

const SEARCH_ID = "srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k";
const QUERY = "cedar 2 release date";
// Opaque page content: it must stay inside the provider blocks, never reach a hosted-tool event.
const ENCRYPTED = "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3NjYSDPAGE-CONTENT==";
const INDEX = "EpMBCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3NjYSDINDEX\u2028é==";
const CITED = "Cedar 2.0 was released on 12 May, with a new scheduler.";

const webSearch: HostedToolSpec = { name: "web_search", hosted: { kind: "web-search" } };

/** The `server_tool_use` block as the message holds it once its input streamed. */
const serverToolUse = {
  type: "server_tool_use",
  id: SEARCH_ID,
  name: "web_search",
  input: { query: QUERY },
  caller: { type: "direct" },
};

const results = [
  {
    type: "web_search_result",
    title: "Cedar 2.0 released",
    url: "https://cedar.example/blog/2-0",
    encrypted_content: ENCRYPTED,
    page_age: "May 12, 2026",
  },
  {
    type: "web_search_result",
    title: "",
    url: "https://news.example/cedar",
    encrypted_content: "EqZZ",
    page_age: null,
  },
];

const searchResult = {
  type: "web_search_tool_result",
  tool_use_id: SEARCH_ID,
  content: results,
  caller: serverToolUse.caller,
};

const citation = {
  type: "web_search_result_location",
  cited_text: CITED,
  url: "https://cedar.example/blog/2-0",
  title: "Cedar 2.0 released",
  encrypted_index: INDEX,
};

/** The cited text block as the message holds it: as it started, with its citations and text. */
const citedBlock = { citations: [citation], type: "text", text: "Cedar 2 shipped on 12 May." };

/** A searching answer: text, the search and its results, then text citing them between plain text. */
function searchingBlocks(result: Readonly<Record<string, unknown>> = searchResult): ScriptedBlock[] {
  return [
    { text: ["I'll search", " for that."] },
    // It starts with `input: {}` in its place, and the input streams.
    { streamed: { ...serverToolUse, input: {} }, json: ['{"query": "ced', 'ar 2 release date"}'] },
    { whole: result },
    { text: ["According to the release notes, "] },
    { cited: ["Cedar 2 shipped", " on 12 May."], citations: [citation] },
    { text: [" It has a new scheduler."] },
  ];
}

const searchUsage = { input_tokens: 2_000, output_tokens: 90, server_tool_use: { web_search_requests: 1 } };

let fixture: HttpFixture;
let answers: SseEvent[][];
beforeEach(async () => {
  answers = [];
  fixture = await startHttpFixture((_request, response) =>
    sendAnswer(response, answers.shift() ?? answer([{ text: ["ok"] }])),
  );
});
afterEach(() => fixture.close());

function model(options: Partial<Parameters<typeof anthropic>[0]> = {}) {
  return anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url, maxRetries: 0, ...options });
}

/** The message object of a scripted answer's message_start, to change in place. */
function startedMessage(events: readonly SseEvent[]): Record<string, unknown> {
  const data = events[0]?.data as { type?: string; message?: Record<string, unknown> } | undefined;
  if (data?.type !== "message_start" || !data.message) throw new Error("the answer does not begin with message_start");
  return data.message;
}

const provider = (data: unknown): ModelStreamEvent => ({
  type: "content",
  block: { type: "provider", provider: "anthropic", data: data as never },
});

describe("the Anthropic web search request", () => {
  it("sends the web_search server tool only when a web-search hosted tool is declared", async () => {
    const inputSchema = { type: "object", properties: {} };
    const tools = [{ name: "lookup", description: "Looks up.", inputSchema }];
    await collect(model(), request({ tools }));
    await collect(model(), request({ tools, hostedTools: [webSearch] }));
    // The spec's name is the Runner's; Anthropic's tool is always named web_search.
    await collect(model(), request({ hostedTools: [{ name: "search", hosted: { kind: "web-search" } }] }));
    const [plain, searching, renamed] = messageBodies(fixture.requests);
    expect(plain?.tools).toEqual([{ name: "lookup", description: "Looks up.", input_schema: inputSchema }]);
    expect(searching?.tools).toEqual([
      { name: "lookup", description: "Looks up.", input_schema: inputSchema },
      { type: "web_search_20250305", name: "web_search" },
    ]);
    expect(renamed?.tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
    expect(JSON.stringify(plain)).not.toContain("web_search");
  });

  it("maps allowedDomains, blockedDomains and maxUses to the tool's fields", async () => {
    const allowed = { kind: "web-search", allowedDomains: ["cedar.example", "docs.example"], maxUses: 3 };
    await collect(model(), request({ hostedTools: [{ name: "web_search", hosted: allowed }] }));
    const blocked = { kind: "web-search", blockedDomains: ["spam.example"] };
    await collect(model(), request({ hostedTools: [{ name: "web_search", hosted: blocked }] }));
    const [first, second] = messageBodies(fixture.requests);
    expect(first?.tools).toEqual([
      {
        type: "web_search_20250305",
        name: "web_search",
        allowed_domains: ["cedar.example", "docs.example"],
        max_uses: 3,
      },
    ]);
    expect(second?.tools).toEqual([
      { type: "web_search_20250305", name: "web_search", blocked_domains: ["spam.example"] },
    ]);
  });

  it.each([
    [
      "allowedDomains with blockedDomains",
      { allowedDomains: ["a.example"], blockedDomains: ["b.example"] },
      /not both/,
    ],
    ["searchContextSize", { searchContextSize: "low" }, /searchContextSize/],
    ["an unknown option", { userLocation: "Oslo" }, /userLocation/],
    ["a maxUses that is not a positive integer", { maxUses: 0 }, /maxUses/],
    ["domains that are not a list of names", { allowedDomains: "a.example" }, /allowedDomains/],
  ])("refuses %s with model_unsupported before any request", async (_what, options, message) => {
    const events = await collect(
      model(),
      request({ hostedTools: [{ name: "web_search", hosted: { kind: "web-search", ...options } }] }),
    );
    expect(events).toHaveLength(1);
    const error = finalError(events);
    expect(isModelProviderError(error, "model_unsupported")).toBe(true);
    expect(error).toMatchObject({ provider: "anthropic", retryable: false });
    expect(error.message).toMatch(message);
    expect(error.message).toContain('"web_search"');
    expect(fixture.requests).toHaveLength(0);
  });

  it("refuses another kind, a second web search and a function tool named web_search, before any request", async () => {
    const cases = [
      request({ hostedTools: [{ name: "code", hosted: { kind: "code-interpreter" } }] }),
      request({ hostedTools: [webSearch, { name: "news", hosted: { kind: "web-search" } }] }),
      request({
        hostedTools: [{ name: "search", hosted: { kind: "web-search" } }],
        tools: [{ name: "web_search", description: "Mine.", inputSchema: { type: "object" } }],
      }),
    ];
    for (const input of cases) {
      const events = await collect(model(), input);
      expect(events).toHaveLength(1);
      expect(isModelProviderError(finalError(events), "model_unsupported")).toBe(true);
    }
    expect(fixture.requests).toHaveLength(0);
  });
});

describe("the Anthropic web search stream", () => {
  it("emits hosted-tool events in order with the blocks, text and finish, and the search count", async () => {
    answers.push(answer(searchingBlocks(), { usage: searchUsage }));
    const events = await collect(model(), request({ hostedTools: [webSearch] }));
    expect(events).toEqual([
      { type: "text-delta", text: "I'll search" },
      { type: "text-delta", text: " for that." },
      provider(serverToolUse),
      {
        type: "hosted-tool",
        callId: SEARCH_ID,
        kind: "web-search",
        status: "started",
        queries: [QUERY],
        sources: [],
      },
      provider(searchResult),
      {
        type: "hosted-tool",
        callId: SEARCH_ID,
        kind: "web-search",
        status: "completed",
        queries: [QUERY],
        // Titles as given, an empty one included.
        sources: [
          { url: "https://cedar.example/blog/2-0", title: "Cedar 2.0 released" },
          { url: "https://news.example/cedar", title: "" },
        ],
      },
      { type: "text-delta", text: "According to the release notes, " },
      // The cited text streams as text, then its block (with citations) follows it.
      { type: "text-delta", text: "Cedar 2 shipped" },
      { type: "text-delta", text: " on 12 May." },
      provider(citedBlock),
      { type: "text-delta", text: " It has a new scheduler." },
      { type: "usage", usage: { inputTokens: 2_000, outputTokens: 90, webSearchRequests: 1 } },
      { type: "finish", stopReason: "end" },
    ]);
    // The Runner's text reads whole.
    expect(textOf(assemble(events).content)).toBe(
      "I'll search for that.According to the release notes, Cedar 2 shipped on 12 May. It has a new scheduler.",
    );
    // No page content, encrypted index or cited text in any hosted-tool event.
    const hosted = JSON.stringify(events.filter((event) => event.type === "hosted-tool"));
    for (const secret of [ENCRYPTED, "EqZZ", INDEX, CITED, "page_age"]) expect(hosted).not.toContain(secret);
    assertNoKey(events);
  });

  it("reports a web_search_tool_result_error as failed with its error code", async () => {
    const failure = {
      type: "web_search_tool_result",
      tool_use_id: SEARCH_ID,
      content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
    };
    const blocks = searchingBlocks(failure).slice(0, 3);
    answers.push(answer([...blocks, { text: ["I could not search further."] }], { usage: searchUsage }));
    const events = await collect(model(), request({ hostedTools: [webSearch] }));
    expect(events.filter((event) => event.type !== "text-delta")).toEqual([
      provider(serverToolUse),
      { type: "hosted-tool", callId: SEARCH_ID, kind: "web-search", status: "started", queries: [QUERY], sources: [] },
      provider(failure),
      {
        type: "hosted-tool",
        callId: SEARCH_ID,
        kind: "web-search",
        status: "failed",
        queries: [QUERY],
        sources: [],
        errorCode: "max_uses_exceeded",
      },
      { type: "usage", usage: { inputTokens: 2_000, outputTokens: 90, webSearchRequests: 1 } },
      { type: "finish", stopReason: "end" },
    ]);
  });

  it("reports webSearchRequests whenever Anthropic counts them, 0 included, and leaves it out otherwise", async () => {
    const zero = answer([{ text: ["No search needed."] }]);
    (startedMessage(zero).usage as Record<string, unknown>).server_tool_use = {
      web_search_requests: 0,
      web_fetch_requests: 0,
    };
    answers.push(zero, answer([{ text: ["ok"] }]));
    const usageOf = (events: ModelStreamEvent[]) => events.find((event) => event.type === "usage");
    expect(usageOf(await collect(model()))).toEqual({
      type: "usage",
      usage: { inputTokens: 12, outputTokens: 7, webSearchRequests: 0 },
    });
    expect(usageOf(await collect(model()))).toEqual({ type: "usage", usage: { inputTokens: 12, outputTokens: 7 } });
  });

  it("takes a cited text block carried whole in message_start as text and its block", async () => {
    const events = answer([]);
    startedMessage(events).content = [citedBlock];
    answers.push(events);
    expect((await collect(model())).filter((event) => event.type !== "usage")).toEqual([
      { type: "text-delta", text: "Cedar 2 shipped on 12 May." },
      provider(citedBlock),
      { type: "finish", stopReason: "end" },
    ]);
  });
});

describe("the Anthropic web search blocks on later turns", () => {
  /** Runs the searching turn and returns the conversation to continue, and the next request's assistant blocks. */
  async function secondTurn(restore: boolean) {
    answers.push(answer(searchingBlocks(), { usage: searchUsage }));
    const first = await collect(model(), request({ hostedTools: [webSearch] }));
    let messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "When did Cedar 2 ship?" }] },
      assemble(first),
      { role: "user", content: [{ type: "text", text: "And the scheduler?" }] },
    ];
    // A Session restored from its saved JSON holds new objects with the same content.
    if (restore) messages = JSON.parse(JSON.stringify(messages)) as Message[];
    await collect(model(), request({ messages, hostedTools: [webSearch] }));
    const body = messageBodies(fixture.requests).at(-1) as { messages: { role: string; content: unknown[] }[] };
    return body.messages;
  }

  it.each([
    ["in the same process", false],
    ["after a restore from saved JSON", true],
  ])("sends the server tool, result and cited blocks back byte for byte %s", async (_when, restore) => {
    const sent = await secondTurn(restore);
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    const assistant = sent[1]?.content ?? [];
    // The plain text before a cited block goes as text; the cited block takes back its own text.
    expect(assistant.map((block) => JSON.stringify(block))).toEqual([
      JSON.stringify({ type: "text", text: "I'll search for that." }),
      JSON.stringify(serverToolUse),
      JSON.stringify(searchResult),
      JSON.stringify({ type: "text", text: "According to the release notes, " }),
      JSON.stringify(citedBlock),
      JSON.stringify({ type: "text", text: " It has a new scheduler." }),
    ]);
  });

  it("sends the same bytes from a restored conversation as from the live one", async () => {
    const live = await secondTurn(false);
    const restored = await secondTurn(true);
    expect(JSON.stringify(restored)).toBe(JSON.stringify(live));
  });

  it("leaves a cited block out when its text was rewritten, so no text goes twice", () => {
    const rewritten: Message[] = [
      { role: "user", content: [{ type: "text", text: "When?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "It shipped in May." },
          { type: "provider", provider: "anthropic", data: citedBlock },
        ],
        toolCalls: [],
      },
    ];
    expect(toAnthropicMessages(rewritten, "")[1]?.content).toEqual([{ type: "text", text: "It shipped in May." }]);
    // Unchanged, the whole text was the cited one: only the block goes.
    const unchanged: Message[] = [
      rewritten[0] as Message,
      {
        role: "assistant",
        content: [
          { type: "text", text: citedBlock.text },
          { type: "provider", provider: "anthropic", data: citedBlock },
        ],
        toolCalls: [],
      },
    ];
    expect(toAnthropicMessages(unchanged, "")[1]?.content).toEqual([citedBlock]);
  });
});
