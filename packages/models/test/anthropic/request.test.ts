import { DeclarationError, isModelProviderError, type Message } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import {
  answer,
  assertNoKey,
  collect,
  FAKE_KEY,
  finalError,
  MODEL,
  messageBodies,
  request,
  sendAnswer,
} from "./support/wire.ts";

let fixture: HttpFixture;
beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) => sendAnswer(response, answer([{ text: ["ok"] }])));
});
afterEach(() => fixture.close());

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

async function sent(input = request(), options: Partial<Parameters<typeof anthropic>[0]> = {}) {
  const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url, ...options });
  const events = await collect(model, input);
  expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
  const body = messageBodies(fixture.requests).at(-1);
  if (!body) throw new Error("no Messages request was sent");
  return body;
}

describe("the Anthropic request", () => {
  it("sends the model, 4,096 output tokens by default, streaming, and no thinking field", async () => {
    const body = await sent();
    expect(fixture.requests[0]).toMatchObject({ method: "POST", path: "/v1/messages" });
    expect(body).toEqual({
      model: MODEL,
      max_tokens: 4096,
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    });
  });

  it("sends maxOutputTokens and the thinking configuration", async () => {
    expect(await sent(request(), { maxOutputTokens: 16_000, thinking: { budgetTokens: 8_000 } })).toMatchObject({
      max_tokens: 16_000,
      thinking: { type: "enabled", budget_tokens: 8_000 },
    });
    expect((await sent(request(), { thinking: "off" })).thinking).toEqual({ type: "disabled" });
    expect((await sent(request(), { thinking: "adaptive" })).thinking).toEqual({ type: "adaptive" });
  });

  it("sends system as the system prompt and context as a final user text block, merged into the last user turn", async () => {
    const body = await sent(request({ system: "Be brief.", context: "Today is Tuesday." }));
    expect(body.system).toBe("Be brief.");
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Hi" },
          { type: "text", text: "Today is Tuesday." },
        ],
      },
    ]);
  });

  it("sends tools with their input schemas", async () => {
    const inputSchema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    const body = await sent(request({ tools: [{ name: "search", description: "Searches.", inputSchema }] }));
    expect(body.tools).toEqual([{ name: "search", description: "Searches.", input_schema: inputSchema }]);
  });

  it("maps a tool round trip: tool_use blocks, tool_result user blocks with is_error and images, merged with the next user message", async () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "Look at these." },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "text", text: "Checking." }],
        toolCalls: [
          { id: "toolu_1", name: "screenshot", input: { page: 1 } },
          { id: "toolu_2", name: "fail", input: {} },
        ],
      },
      {
        role: "tool",
        toolCallId: "toolu_1",
        toolName: "screenshot",
        content: [
          { type: "text", text: "Page 1:" },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
        isError: false,
      },
      {
        role: "tool",
        toolCallId: "toolu_2",
        toolName: "fail",
        content: [{ type: "text", text: "boom" }],
        isError: true,
      },
      { role: "user", content: [{ type: "text", text: "And?" }] },
    ];
    const body = await sent(request({ messages, context: "ctx" }));
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Look at these." }, image] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_1", name: "screenshot", input: { page: 1 } },
          { type: "tool_use", id: "toolu_2", name: "fail", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [{ type: "text", text: "Page 1:" }, image],
            is_error: false,
          },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "boom" }], is_error: true },
          { type: "text", text: "And?" },
          { type: "text", text: "ctx" },
        ],
      },
    ]);
  });

  it("sends its own provider blocks back unchanged and in place, and drops other providers' blocks", async () => {
    const thinking = { type: "thinking", thinking: "Hmm.", signature: "sig/+==" };
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "Q" }] },
      {
        role: "assistant",
        content: [
          { type: "provider", provider: "anthropic", data: thinking },
          { type: "provider", provider: "openai", data: { type: "reasoning", id: "rs_1" } },
          { type: "text", text: "A" },
          { type: "provider", provider: "anthropic", data: { type: "redacted_thinking", data: "xyz" } },
        ],
        toolCalls: [{ id: "toolu_9", name: "t", input: {} }],
      },
      { role: "tool", toolCallId: "toolu_9", toolName: "t", content: [], isError: false },
    ];
    const body = await sent(request({ messages }));
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Q" }] },
      {
        role: "assistant",
        content: [
          thinking,
          { type: "text", text: "A" },
          { type: "redacted_thinking", data: "xyz" },
          { type: "tool_use", id: "toolu_9", name: "t", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", is_error: false }] },
    ]);
  });

  it("leaves out empty text and messages left empty, and notes images Anthropic cannot read", async () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "" },
          { type: "image", mediaType: "image/bmp", data: "Qk0=" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "" }], toolCalls: [] },
      { role: "user", content: [{ type: "text", text: "again" }] },
    ];
    const body = await sent(request({ messages }));
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "[An image/bmp image was left out: Anthropic reads JPEG, PNG, GIF and WebP.]" },
          { type: "text", text: "again" },
        ],
      },
    ]);
  });

  it("ends with model_unsupported for a hosted tool kind other than web-search, sending nothing", async () => {
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url });
    const events = await collect(
      model,
      request({ hostedTools: [{ name: "code", hosted: { kind: "code-interpreter" } }] }),
    );
    expect(events).toHaveLength(1);
    expect(isModelProviderError(finalError(events), "model_unsupported")).toBe(true);
    expect(fixture.requests).toHaveLength(0);
  });
});

describe("the anthropic binding", () => {
  it("has a specifier and a context window, connects to nothing, and keeps the key off the binding", async () => {
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url });
    expect(model.specifier).toBe(`anthropic/${MODEL}`);
    // An id the documented table does not know has no window; a known family has its own.
    expect(model.contextWindow).toBeUndefined();
    expect(anthropic({ apiKey: FAKE_KEY, model: "claude-sonnet-4-6" }).contextWindow).toBe(200_000);
    expect(anthropic({ apiKey: FAKE_KEY, model: "claude-3-5-haiku-20241022" }).contextWindow).toBe(200_000);
    expect(anthropic({ apiKey: FAKE_KEY, model: "claude-sonnet-40" }).contextWindow).toBeUndefined();
    expect(anthropic({ apiKey: FAKE_KEY, model: MODEL, contextWindow: 1_000_000 }).contextWindow).toBe(1_000_000);
    expect(() => anthropic({ apiKey: FAKE_KEY, model: MODEL, contextWindow: 0 })).toThrow(/contextWindow/);
    expect(fixture.requests).toHaveLength(0);
    assertNoKey(model, Object.getOwnPropertyNames(model));
  });

  it.each([
    [{ apiKey: "" }, /apiKey/],
    [{ model: "" }, /model/],
    [{ maxOutputTokens: 0 }, /maxOutputTokens/],
    [{ maxRetries: 11 }, /maxRetries/],
    [{ thinking: { budgetTokens: 512 } }, /budgetTokens/],
    [{ thinking: { budgetTokens: 4_096 } }, /less than maxOutputTokens/],
    [{ baseURL: "ftp://example.com" }, /baseURL/],
    [{ pricing: { inputPerMillion: -1, outputPerMillion: 1 } }, /pricing/],
  ])("refuses bad options %j", (bad, message) => {
    const create = () => anthropic({ apiKey: FAKE_KEY, model: MODEL, ...bad });
    expect(create).toThrow(DeclarationError);
    expect(create).toThrow(message);
  });
});
