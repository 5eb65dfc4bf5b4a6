// Reasoning details sent back: a saved block goes out unchanged as the assistant message's
// `reasoning_details`, other providers' blocks are dropped, and in a node-runner tool round
// trip the second request carries the first answer's details byte for byte.
import { type ContentBlock, defineAgent, defineTool, type JsonObject, type RunEvent } from "@castellan/harness";
import { openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { type HttpFixture, type SseEvent, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { chatRequests, collect, fakeKey, modelRequest, never, textAnswer, toolCallAnswer } from "./chat-fixture.js";
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

// Characters a careless round trip would change: JSON escapes, a line separator, non-ASCII.
const SIGNATURE = 'EqQBCkYIBRgCIkB/+sig==\u2028"quoted"\\slash\u00e9\u{1F512}end';

describe("reasoning_details sent back", () => {
  it("sends this adapter's block unchanged as reasoning_details and drops other providers' blocks", async () => {
    const details: JsonObject[] = [
      ...claudeDetails(["Plan."], SIGNATURE, "EmwK=="),
      { type: "reasoning.summary", summary: "s", id: null, format: "unknown", index: 2, extra: { kept: [true] } },
    ];
    const content: ContentBlock[] = [
      { type: "provider", provider: "anthropic", data: { type: "thinking", thinking: "x", signature: "y" } },
      { type: "provider", provider: "openai-compatible", data: { reasoning_details: details } },
      { type: "provider", provider: "openai-compatible", data: { something: "else" } },
      { type: "text", text: "Answer." },
    ];
    await collect(
      model().stream(
        modelRequest({
          messages: [
            { role: "user", content: [{ type: "text", text: "Q" }] },
            { role: "assistant", content, toolCalls: [] },
            { role: "assistant", content: [{ type: "text", text: "No reasoning here." }], toolCalls: [] },
            { role: "user", content: [{ type: "text", text: "Q2" }] },
          ],
        }),
        { signal: never },
      ),
    );
    const [request] = fixture.requests;
    expect(chatRequests(fixture.requests)[0]?.messages).toEqual([
      { role: "user", content: "Q" },
      { role: "assistant", content: "Answer.", reasoning_details: details },
      { role: "assistant", content: "No reasoning here." },
      { role: "user", content: "Q2" },
    ]);
    expect(request?.body).toContain(`"reasoning_details":${JSON.stringify(details)}`);
  });

  it("carries the first answer's reasoning into the request after the tool call, byte for byte", async () => {
    const pieces = ["I need the forecast ", "for Oslo."];
    answers.push(
      reasoningThen(
        claudeReasoning(pieces, SIGNATURE, "EmwKAhgBEgy3va3p=="),
        toolCallAnswer([{ id: "call_fc", name: "forecast", pieces: ['{"city":"Oslo"}'] }]),
      ),
      textAnswer(["Rain in Oslo."]),
    );
    const forecast = defineTool({
      name: "forecast",
      description: "The weather forecast for a city.",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      readOnly: true,
      execute: (input: { city: string }) => `Rain in ${input.city}, 12°C.`,
    });
    const agent = defineAgent("test.compatible-reasoning", {
      model: model(),
      instructions: "Use tools.",
      tools: [forecast],
    });
    const session = await openSession({ agent });
    const events: RunEvent[] = [];
    try {
      const run = session.run("Weather in Oslo?");
      for await (const event of run) events.push(event);
      expect((await run.result).text).toBe("Rain in Oslo.");
    } finally {
      await session.close();
    }

    const details = claudeDetails(pieces, SIGNATURE, "EmwKAhgBEgy3va3p==");
    expect(events.filter((event) => event.kind === "assistant-thinking-delta").map((event) => event.text)).toEqual(
      pieces,
    );
    const [, followUp] = chatRequests(fixture.requests);
    expect(followUp?.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_fc", type: "function", function: { name: "forecast", arguments: '{"city":"Oslo"}' } }],
        reasoning_details: details,
      },
      { role: "tool", tool_call_id: "call_fc", content: "Rain in Oslo, 12°C." },
    ]);
    expect(fixture.requests[1]?.body).toContain(`"reasoning_details":${JSON.stringify(details)}`);
    expect(JSON.stringify(events)).not.toContain(fakeKey);
  });
});
