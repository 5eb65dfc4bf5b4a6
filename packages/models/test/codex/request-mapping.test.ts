import { DeclarationError, isModelProviderError, type Message, type ModelRequest } from "@castellan/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexOptions, codex } from "../../src/codex/index.js";
import { type HttpFixture, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { modelRequest } from "../support/request.js";
import { collect, errorOf, FAKE_KEY, ResponsesStream } from "./support/responses-sse.js";

let fixture: HttpFixture;
beforeAll(async () => {
  fixture = await startHttpFixture((_request, response) =>
    sendSse(response, new ResponsesStream().text(["ok"]).completed()),
  );
});
afterAll(() => fixture.close());

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const reasoningItem = {
  id: "rs_1",
  type: "reasoning",
  summary: [{ type: "summary_text", text: "Thinking." }],
  encrypted_content: "gAAAA-opaque",
};

const base = modelRequest;

/** Sends the request and returns the JSON body the fixture received. */
async function sent(request: ModelRequest, options: Partial<CodexOptions> = {}): Promise<Record<string, unknown>> {
  const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url, ...options });
  const events = await collect(model.stream(request, { signal: new AbortController().signal }));
  expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
  return fixture.requests.at(-1)?.json as Record<string, unknown>;
}

describe("codex request mapping", () => {
  it("maps system, user text and images, assistant items in order, tool results and context", async () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture?" },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "provider", provider: "openai-responses", data: reasoningItem },
          { type: "text", text: "Let me check two things." },
          { type: "provider", provider: "anthropic", data: { signature: "foreign" } },
          {
            type: "provider",
            provider: "openai-responses",
            data: {
              id: "fc_1",
              type: "function_call",
              status: "completed",
              arguments: '{ "q": 1 }',
              call_id: "c1",
              name: "a",
            },
          },
          { type: "provider", provider: "openai-responses", data: { ...reasoningItem, id: "rs_2" } },
          {
            type: "provider",
            provider: "openai-responses",
            data: { id: "fc_2", type: "function_call", status: "completed", arguments: "{}", call_id: "c2", name: "b" },
          },
        ],
        toolCalls: [
          { id: "c1", name: "a", input: { q: 1 } },
          // A hook changed this call's input: it goes back as the call says, with its item id.
          { id: "c2", name: "b", input: { changed: true } },
          // No block: made by another adapter, so it follows the content.
          { id: "c3", name: "c", input: {} },
        ],
      },
      { role: "tool", toolCallId: "c1", toolName: "a", content: [{ type: "text", text: "one" }], isError: false },
      {
        role: "tool",
        toolCallId: "c2",
        toolName: "b",
        content: [
          { type: "text", text: "Screenshot:" },
          { type: "image", mediaType: "image/png", data: PNG },
          { type: "text", text: "(end)" },
        ],
        isError: false,
      },
      { role: "tool", toolCallId: "c3", toolName: "c", content: [], isError: true },
    ];
    const body = await sent(
      base({
        system: "You are careful.",
        context: "Today is Tuesday.",
        messages,
        tools: [
          { name: "a", description: "Tool A", inputSchema: { type: "object", properties: { q: { type: "number" } } } },
        ],
      }),
    );
    expect(body.instructions).toBe("You are careful.");
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.tools).toEqual([
      {
        type: "function",
        name: "a",
        description: "Tool A",
        parameters: { type: "object", properties: { q: { type: "number" } } },
        strict: false,
      },
    ]);
    expect(body.input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is in this picture?" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
        ],
      },
      reasoningItem,
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Let me check two things.", annotations: [] }],
      },
      { id: "fc_1", type: "function_call", status: "completed", arguments: '{ "q": 1 }', call_id: "c1", name: "a" },
      { ...reasoningItem, id: "rs_2" },
      { type: "function_call", id: "fc_2", call_id: "c2", name: "b", arguments: '{"changed":true}' },
      { type: "function_call", call_id: "c3", name: "c", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "one" },
      {
        type: "function_call_output",
        call_id: "c2",
        output: [
          { type: "input_text", text: "Screenshot:" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
          { type: "input_text", text: "(end)" },
        ],
      },
      { type: "function_call_output", call_id: "c3", output: "" },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Today is Tuesday." }] },
    ]);
  });

  it("sends an own provider block byte for byte", async () => {
    const item = { type: "reasoning", id: "rs_9", summary: [], encrypted_content: "x/y+z==", status: null };
    await sent(
      base({
        messages: [
          { role: "user", content: [{ type: "text", text: "a" }] },
          {
            role: "assistant",
            content: [{ type: "provider", provider: "openai-responses", data: item }],
            toolCalls: [],
          },
          { role: "user", content: [{ type: "text", text: "b" }] },
        ],
      }),
    );
    expect(fixture.requests.at(-1)?.body).toContain(JSON.stringify(item));
  });

  it("passes reasoning, output limit and headers, and omits what is not set", async () => {
    const body = await sent(base({ messages: [{ role: "user", content: [{ type: "text", text: "a" }] }] }), {
      reasoning: { effort: "high", summary: "auto" },
      maxOutputTokens: 2048,
      headers: { "x-extra": "1" },
    });
    expect(body.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(body.max_output_tokens).toBe(2048);
    expect(fixture.requests.at(-1)?.headers["x-extra"]).toBe("1");
    expect(body).not.toHaveProperty("instructions");
    expect(body).not.toHaveProperty("tools");

    const plain = await sent(base({ messages: [{ role: "user", content: [{ type: "text", text: "a" }] }] }), {
      reasoning: false,
    });
    expect(plain).not.toHaveProperty("include");
    expect(plain).not.toHaveProperty("reasoning");
    expect(plain).not.toHaveProperty("max_output_tokens");
    expect(plain.store).toBe(false);
  });

  it("maps a declared web_search hosted tool to the native web_search tool", async () => {
    const body = await sent(
      base({
        messages: [{ role: "user", content: [{ type: "text", text: "news?" }] }],
        hostedTools: [
          {
            name: "web_search",
            hosted: { kind: "web-search", allowedDomains: ["example.com"], searchContextSize: "low" },
          },
        ],
      }),
    );
    expect(body.tools).toEqual([
      { type: "web_search", filters: { allowed_domains: ["example.com"] }, search_context_size: "low" },
    ]);
    const minimal = await sent(base({ hostedTools: [{ name: "web_search", hosted: { kind: "web-search" } }] }));
    expect(minimal.tools).toEqual([{ type: "web_search" }]);
  });

  it("fails other hosted kinds and unknown options with model_unsupported, sending nothing", async () => {
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url });
    const before = fixture.requests.length;
    for (const hosted of [{ kind: "code-interpreter" }, { kind: "web-search", blockedDomains: ["x.com"] }]) {
      const events = await collect(
        model.stream(base({ hostedTools: [{ name: "tool", hosted }] }), { signal: new AbortController().signal }),
      );
      expect(events).toHaveLength(1);
      expect(isModelProviderError(errorOf(events), "model_unsupported")).toBe(true);
    }
    expect(fixture.requests.length).toBe(before);
  });

  it("uses the Codex backend by default for an access token, and validates its options", () => {
    expect(() => codex({ model: "m" })).toThrow(/exactly one of apiKey and accessToken/);
    expect(() => codex({ apiKey: "a", accessToken: "b", model: "m" })).toThrow(/exactly one/);
    expect(() => codex({ apiKey: "a", model: "m", maxRetries: -1 })).toThrow(/maxRetries/);
    const model = codex({ accessToken: FAKE_KEY, model: "gpt-5-codex", contextWindow: 400_000 });
    expect(model.contextWindow).toBe(400_000);
    expect(() => codex({ apiKey: "a", model: "m", contextWindow: 0 })).toThrow(/contextWindow/);
    // Regression: negative prices were accepted, and every cost came out negative.
    expect(() => codex({ apiKey: "a", model: "m", pricing: { inputPerMillion: -1, outputPerMillion: 1 } })).toThrow(
      DeclarationError,
    );
    // The credential is not a property of the binding.
    expect(JSON.stringify(model)).not.toContain(FAKE_KEY);
    expect(Object.values(model).some((value) => typeof value === "string" && value.includes(FAKE_KEY))).toBe(false);
  });

  it("takes the window of a known model from the documented table, and assumes none for an unknown one", () => {
    const window = (id: string) => codex({ apiKey: FAKE_KEY, model: id }).contextWindow;
    expect(window("gpt-5")).toBe(272_000);
    expect(window("gpt-5.1-codex-max")).toBe(272_000);
    expect(window("gpt-5-2025-08-07")).toBe(272_000);
    expect(window("gpt-4.1-mini")).toBe(1_047_576);
    expect(window("o4-mini")).toBe(200_000);
    expect(window("gpt-50")).toBeUndefined();
    expect(window("my-fine-tune")).toBeUndefined();
  });
});
