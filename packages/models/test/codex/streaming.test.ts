import type { ModelRequest } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import { codex } from "../../src/codex/index.js";
import { type HttpFixture, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { neverAborts as signal } from "../support/signal.js";
import { collect, FAKE_KEY, ResponsesStream, textOfEvents } from "./support/responses-sse.js";

const request: ModelRequest = {
  system: "Be brief.",
  context: "",
  messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
  tools: [{ name: "lookup", description: "Look something up", inputSchema: { type: "object" } }],
  hostedTools: [],
};
let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function serve(events: ReturnType<ResponsesStream["completed"]>) {
  fixture = await startHttpFixture((_request, response) => sendSse(response, events));
  return codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: `${fixture.url}/v1` });
}

describe("codex streaming", () => {
  it("posts a streaming Responses request and streams text deltas in order, then usage and finish", async () => {
    const model = await serve(new ResponsesStream().text(["Hel", "lo", " there"]).completed({ input: 12, output: 3 }));
    const events = await collect(model.stream(request, { signal: signal() }));
    expect(textOfEvents(events)).toBe("Hello there");
    expect(events.filter((event) => event.type === "text-delta").map((event) => event.text)).toEqual([
      "Hel",
      "lo",
      " there",
    ]);
    expect(events.slice(-2)).toEqual([
      // A cache count of 0 is left out, as every binding does (shared/usage.ts).
      { type: "usage", usage: { inputTokens: 12, outputTokens: 3 } },
      { type: "finish", stopReason: "end" },
    ]);
    const sent = fixture?.requests[0];
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/responses");
    expect(sent?.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
    expect(sent?.json).toMatchObject({ model: "gpt-5-codex", stream: true, store: false, instructions: "Be brief." });
    expect(model.specifier).toBe("codex/gpt-5-codex");
    expect(model.contextWindow).toBe(272_000);
  });

  it("assembles a tool call from streamed argument pieces and keeps its item in place", async () => {
    const model = await serve(
      new ResponsesStream()
        .text(["Let me look."])
        .functionCall("call_1", "lookup", ['{"qu', 'ery": "ced', 'ar"}'])
        .completed(),
    );
    const events = await collect(model.stream(request, { signal: signal() }));
    const kinds = events.map((event) => event.type);
    expect(kinds).toEqual(["text-delta", "content", "tool-call", "usage", "finish"]);
    expect(events[2]).toEqual({
      type: "tool-call",
      toolCall: { id: "call_1", name: "lookup", input: { query: "cedar" } },
    });
    expect(events[1]).toEqual({
      type: "content",
      block: {
        type: "provider",
        provider: "openai-responses",
        data: {
          id: "fc_1",
          type: "function_call",
          status: "completed",
          arguments: '{"query": "cedar"}',
          call_id: "call_1",
          name: "lookup",
        },
      },
    });
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "tool-calls" });
  });

  it("streams reasoning summaries as thinking and emits the reasoning item whole, in place", async () => {
    const stream = new ResponsesStream()
      .reasoning(["First I think.", "Then I decide."], "gAAAA-encrypted-1")
      .text(["Done."]);
    const model = await serve(stream.completed());
    const events = await collect(model.stream(request, { signal: signal() }));
    expect(events.map((event) => event.type)).toEqual([
      "thinking-delta",
      "thinking-delta",
      "thinking-delta",
      "content",
      "text-delta",
      "usage",
      "finish",
    ]);
    const thinking = events.map((event) => (event.type === "thinking-delta" ? event.text : "")).join("");
    expect(thinking).toBe("First I think.\n\nThen I decide.");
    expect(events[3]).toEqual({
      type: "content",
      block: { type: "provider", provider: "openai-responses", data: stream.output[0] },
    });
  });

  it("keeps a hosted web search call as a provider block", async () => {
    const stream = new ResponsesStream().webSearch("cedar release date").text(["It shipped."]);
    const model = await serve(stream.completed());
    const events = await collect(model.stream(request, { signal: signal() }));
    // Its start comes first (web-search.test.ts covers the hosted-tool events); the item follows when done.
    expect(events[0]).toMatchObject({ type: "hosted-tool", callId: "ws_0", status: "started" });
    expect(events[1]).toEqual({
      type: "content",
      block: { type: "provider", provider: "openai-responses", data: stream.output[0] },
    });
    expect(textOfEvents(events)).toBe("It shipped.");
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
  });

  it("reports cached tokens and the cost from pricing", async () => {
    fixture = await startHttpFixture((_request, response) =>
      sendSse(response, new ResponsesStream().text(["ok"]).completed({ input: 2_000, output: 1_000, cached: 1_500 })),
    );
    const model = codex({
      apiKey: FAKE_KEY,
      model: "gpt-5-codex",
      baseURL: fixture.url,
      pricing: { inputPerMillion: 1.25, cacheReadPerMillion: 0.125, outputPerMillion: 10 },
    });
    const events = await collect(model.stream(request, { signal: signal() }));
    const usage = events.find((event) => event.type === "usage");
    expect(usage).toEqual({
      type: "usage",
      usage: {
        inputTokens: 2_000,
        outputTokens: 1_000,
        cacheReadTokens: 1_500,
        costUsd: (500 * 1.25 + 1_500 * 0.125 + 1_000 * 10) / 1_000_000,
      },
    });
  });

  it("ends an incomplete response with max-tokens or refusal, after its usage", async () => {
    const model = await serve(new ResponsesStream().text(["Part"]).incomplete("max_output_tokens"));
    const events = await collect(model.stream(request, { signal: signal() }));
    expect(events.slice(-2).map((event) => event.type)).toEqual(["usage", "finish"]);
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "max-tokens" });

    fixture?.handle((_request, response) => sendSse(response, new ResponsesStream().incomplete("content_filter")));
    const filtered = await collect(model.stream(request, { signal: signal() }));
    expect(filtered.at(-1)).toEqual({ type: "finish", stopReason: "refusal" });
  });

  it("streams a refusal as text and finishes with refusal", async () => {
    const stream = new ResponsesStream();
    stream.emit("response.refusal.delta", { item_id: "msg_0", output_index: 0, content_index: 0, delta: "I can't." });
    const model = await serve(stream.completed());
    const events = await collect(model.stream(request, { signal: signal() }));
    expect(textOfEvents(events)).toBe("I can't.");
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "refusal" });
  });
});
