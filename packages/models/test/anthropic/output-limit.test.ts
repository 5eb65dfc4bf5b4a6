// Messages API answers that stop at max_tokens: a text answer ends the Run as truncated, and a
// tool_use block whose streamed input was cut off reaches the Runner as a malformed call, which
// it settles with an error the model reads before the Run goes on.
import { defineAgent, defineTool, type JsonValue } from "@castellan/harness";
import { openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anthropic } from "../../src/anthropic/index.js";
import { type HttpFixture, type SseEvent, startHttpFixture } from "../support/http-fixture.ts";
import { answer, collect, FAKE_KEY, MODEL, messageBodies, sendAnswer } from "./support/wire.ts";

let fixture: HttpFixture;
let answers: SseEvent[][];
beforeEach(async () => {
  answers = [];
  fixture = await startHttpFixture((_request, response) =>
    sendAnswer(response, answers.shift() ?? answer([{ text: ["?"] }])),
  );
});
afterEach(async () => {
  await fixture.close();
});

const model = () => anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url });
const cutToolUse = () =>
  answer([{ tool: { id: "toolu_cut", name: "save", json: ['{"name":"notes.md",', '"text":"The fir'] } }], {
    stopReason: "max_tokens",
  });

describe("anthropic at max_tokens", () => {
  it("reports a tool_use block with cut-off input as a malformed call", async () => {
    answers.push(cutToolUse());
    const events = await collect(model());
    expect(events.find((event) => event.type === "tool-call")).toEqual({
      type: "tool-call",
      toolCall: { id: "toolu_cut", name: "save", input: {}, malformedInput: '{"name":"notes.md","text":"The fir' },
    });
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "max-tokens" });
  });

  it("ends a Run whose final answer was cut off as truncated", async () => {
    answers.push(answer([{ text: ["The answer ", "is"] }], { stopReason: "max_tokens" }));
    const session = await openSession({ agent: defineAgent("test.limit", { model: model() }) });
    try {
      const result = await session.run("Explain.").result;
      expect(result).toMatchObject({ text: "The answer is", stopReason: "max-tokens", truncated: true });
    } finally {
      await session.close();
    }
  });

  it("settles a cut-off tool call with an error the model reads, and the Run goes on", async () => {
    const saved: JsonValue[] = [];
    const save = defineTool<JsonValue>({
      name: "save",
      description: "Save a note",
      inputSchema: { type: "object", properties: { name: { type: "string" }, text: { type: "string" } } },
      execute: (input: JsonValue) => {
        saved.push(input);
        return "saved";
      },
    });
    answers.push(cutToolUse(), answer([{ text: ["Sending less."] }]));
    const session = await openSession({
      agent: defineAgent("test.limit", { model: model(), tools: [save] }),
      permissions: "full-access",
    });
    try {
      const result = await session.run("Save the notes.").result;
      expect(result).toMatchObject({ text: "Sending less.", stopReason: "end", truncated: false });
    } finally {
      await session.close();
    }
    expect(saved).toEqual([]);
    const messages = (messageBodies(fixture.requests)[1]?.messages ?? []) as Record<string, unknown>[];
    // The cut call goes back with an empty input object, answered by its error result.
    expect(messages.slice(-2)).toEqual([
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_cut", name: "save", input: {} }] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_cut",
            is_error: true,
            content: [{ type: "text", text: expect.stringContaining("cut off at the output limit") }],
          },
        ],
      },
    ]);
  });
});
