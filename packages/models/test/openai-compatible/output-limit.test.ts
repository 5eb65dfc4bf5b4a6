// Chat Completions answers that stop at the output limit (finish_reason "length"): a text
// answer ends the Run as truncated, and a tool call whose arguments were cut off reaches the
// Runner as a malformed call, which it settles with an error the model reads before it goes on.
import { defineAgent, defineTool, type JsonValue } from "@castellan/harness";
import { openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { type HttpFixture, type SseEvent, sendSse, startHttpFixture } from "../support/http-fixture.js";
import {
  chatRequests,
  chunk,
  collect,
  done,
  fakeKey,
  modelRequest,
  never,
  textAnswer,
  usageChunk,
} from "./chat-fixture.js";

/** A text answer cut off at the output limit. */
function cutText(text: string): SseEvent[] {
  return [
    { data: chunk({ role: "assistant", content: text }) },
    { data: chunk({}, "length") },
    { data: usageChunk(30, 16) },
    done,
  ];
}

/** A tool call whose arguments stop mid-value, cut off at the output limit. */
function cutToolCall(id: string, partial: string): SseEvent[] {
  return [
    { data: chunk({ role: "assistant", content: null }) },
    {
      data: chunk({ tool_calls: [{ index: 0, id, type: "function", function: { name: "save", arguments: "" } }] }),
    },
    { data: chunk({ tool_calls: [{ index: 0, function: { arguments: partial } }] }) },
    { data: chunk({}, "length") },
    { data: usageChunk(30, 16) },
    done,
  ];
}

let fixture: HttpFixture;
let answers: SseEvent[][];
beforeEach(async () => {
  answers = [];
  fixture = await startHttpFixture((_request, response) => sendSse(response, answers.shift() ?? textAnswer(["?"])));
});
afterEach(async () => {
  await fixture.close();
});

const model = () => openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model" });

describe("openaiCompatible at the output limit", () => {
  it("reports a call with cut-off arguments as a malformed call, keeping the text as sent", async () => {
    answers.push(cutToolCall("call_cut", '{"name":"notes.md","text":"The first'));
    const events = await collect(model().stream(modelRequest(), { signal: never }));
    expect(events.filter((event) => event.type !== "usage")).toEqual([
      {
        type: "tool-call",
        toolCall: { id: "call_cut", name: "save", input: {}, malformedInput: '{"name":"notes.md","text":"The first' },
      },
      { type: "finish", stopReason: "max-tokens" },
    ]);
  });

  it("ends a Run whose final answer was cut off as truncated", async () => {
    answers.push(cutText("The answer is"));
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
    answers.push(cutToolCall("call_cut", '{"name":"notes.md","text":"The first'), textAnswer(["Sending less."]));
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
    const second = chatRequests(fixture.requests)[1]?.messages ?? [];
    // The cut call is sent back with empty arguments, and its error result follows it.
    expect(second.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_cut", type: "function", function: { name: "save", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "call_cut", content: expect.stringContaining("cut off at the output limit") },
    ]);
  });
});
