// Regression: the Anthropic SDK printed a deprecation notice to the console on every call for
// some model ids (claude-sonnet-4-5, and claude-opus-4-6 with thinking enabled), even with
// logging off, into the host's stderr. The console guard fails any test here that writes.
import Anthropic from "@anthropic-ai/sdk";
import { anthropic } from "@castellan/models/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { sendMessages } from "../../src/anthropic/send-messages.js";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { answer, collect, FAKE_KEY, messageBodies, sendAnswer } from "./support/wire.ts";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function serveAnswers() {
  fixture = await startHttpFixture((_request, response) => sendAnswer(response, answer([{ text: ["ok"] }])));
  return fixture;
}

describe("models the SDK calls deprecated", () => {
  it.each([
    ["claude-sonnet-4-5", {}],
    ["claude-sonnet-4-5-20250929", {}],
    ["claude-opus-4-6", { thinking: { budgetTokens: 2_048 } }],
  ] as const)("%s streams its answer and writes nothing to the console", async (model, options) => {
    const server = await serveAnswers();
    const binding = anthropic({ apiKey: FAKE_KEY, model, baseURL: server.url, ...options });
    const events = await collect(binding);
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    expect(messageBodies(server.requests)[0]?.model).toBe(model);
  });

  it("sends the request messages.create would send, byte for byte", async () => {
    const server = await serveAnswers();
    const client = new Anthropic({ apiKey: FAKE_KEY, baseURL: server.url, maxRetries: 0, logLevel: "off" });
    const params: Anthropic.MessageCreateParamsStreaming = {
      model: "claude-test-1",
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      tools: [{ name: "t", description: "A tool.", input_schema: { type: "object" } }],
    };
    const signal = new AbortController().signal;
    for await (const _event of await client.messages.create(params, { signal })) {
      // Read to the end, as the adapter does.
    }
    // Read to the end, as the adapter does.
    await (await sendMessages(client, params, signal)).text();
    const [viaCreate, viaPost] = server.requests;
    expect(viaPost?.body).toBe(viaCreate?.body);
    expect(viaPost?.path).toBe(viaCreate?.path);
    expect(viaPost?.headers).toEqual(viaCreate?.headers);
  });
});
