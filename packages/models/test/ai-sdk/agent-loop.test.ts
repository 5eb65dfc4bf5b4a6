// A whole agent loop through @castellan/node-runner with an AI SDK model (@ai-sdk/openai's
// Responses model against a loopback server): a tool round trip, the Session saved by the file
// store and continued after reopening, with the reasoning block sent back from the saved log.
import { createOpenAI } from "@ai-sdk/openai";
import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { createFileSessionStore, openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, type SseEvent, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.js";

const KEY = "sk-test-agent-loop-KEY-c0ffee";
let fixture: HttpFixture;
let directory: string;

beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) =>
    sendJson(response, 500, { error: { message: "no handler" } }),
  );
  directory = await tempDir("castellan-ai-sdk-");
});
afterEach(async () => {
  await fixture.close();
  await removeDir(directory);
});

function event(type: string, body: Record<string, unknown>): SseEvent {
  return { event: type, data: { type, ...body } };
}

function response(id: string, items: SseEvent[]): SseEvent[] {
  return [
    event("response.created", { response: { id, created_at: 1_700_000_000, model: "gpt-5-mini" } }),
    ...items,
    event("response.completed", {
      response: {
        incomplete_details: null,
        usage: { input_tokens: 50, input_tokens_details: { cached_tokens: 10 }, output_tokens: 7 },
      },
    }),
  ];
}

function message(index: number, id: string, text: string): SseEvent[] {
  return [
    event("response.output_item.added", { output_index: index, item: { type: "message", id } }),
    event("response.output_text.delta", { item_id: id, output_index: index, delta: text }),
    event("response.output_item.done", { output_index: index, item: { type: "message", id } }),
  ];
}

const thinkThenCall = response("resp_1", [
  event("response.output_item.added", {
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", encrypted_content: null },
  }),
  event("response.reasoning_summary_part.added", { item_id: "rs_1", output_index: 0, summary_index: 0 }),
  event("response.reasoning_summary_text.delta", {
    item_id: "rs_1",
    output_index: 0,
    summary_index: 0,
    delta: "Save it.",
  }),
  event("response.reasoning_summary_part.done", { item_id: "rs_1", output_index: 0, summary_index: 0 }),
  event("response.output_item.done", {
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", encrypted_content: "ENC-1" },
  }),
  event("response.output_item.added", {
    output_index: 1,
    item: { type: "function_call", id: "fc_1", call_id: "call_note", name: "note", arguments: "" },
  }),
  event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 1, delta: '{"text":"Cedar"}' }),
  event("response.output_item.done", {
    output_index: 1,
    item: {
      type: "function_call",
      id: "fc_1",
      call_id: "call_note",
      name: "note",
      arguments: '{"text":"Cedar"}',
      status: "completed",
    },
  }),
]);

/** Opens the Session "chat" in the temp directory with a fresh model binding. */
async function open(notes: string[]) {
  const note = defineTool({
    name: "note",
    description: "Save a note.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => {
      notes.push(text);
      return `saved ${text}`;
    },
  });
  const model = aiSdk(createOpenAI({ baseURL: fixture.url, apiKey: KEY }).responses("gpt-5-mini"), {
    providerOptions: { openai: { store: false } },
    contextWindow: 400_000,
  });
  const agent = defineAgent("test.ai-sdk", { model, instructions: "Take notes when asked.", tools: [note] });
  return await openSession({
    agent,
    id: "chat",
    store: createFileSessionStore({ directory }),
    permissions: "full-access",
  });
}

async function runToEnd(session: Awaited<ReturnType<typeof open>>, input: string) {
  const run = session.run(input);
  const events: RunEvent[] = [];
  for await (const runEvent of run) events.push(runEvent);
  const result = await run.result.then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error: error as Error }),
  );
  return { events, ...result };
}

async function savedLog(): Promise<string> {
  return (await readFiles(directory)).join("");
}

describe("an agent loop on an AI SDK model", () => {
  it("runs a tool round trip, saves the Session, and continues it after reopening with the reasoning sent back", async () => {
    const answers = [
      thinkThenCall,
      response("resp_2", message(0, "msg_1", "Noted: Cedar.")),
      response("resp_3", message(0, "msg_2", "Cedar.")),
    ];
    fixture.handle((_request, reply) => sendSse(reply, answers.shift() ?? []));
    const notes: string[] = [];

    const first = await open(notes);
    let firstRun: Awaited<ReturnType<typeof runToEnd>>;
    try {
      firstRun = await runToEnd(first, "Remember our project is Cedar.");
    } finally {
      await first.close();
    }
    expect(firstRun.error).toBeUndefined();
    expect(firstRun.value?.text).toBe("Noted: Cedar.");
    expect(notes).toEqual(["Cedar"]);
    expect(firstRun.events.filter((runEvent) => runEvent.kind === "assistant-thinking-delta")).toHaveLength(1);
    const secondCall = fixture.requests[1]?.json as { input: unknown[] };
    expect(secondCall.input.slice(-3)).toEqual([
      {
        type: "reasoning",
        id: "rs_1",
        encrypted_content: "ENC-1",
        summary: [{ type: "summary_text", text: "Save it." }],
      },
      { type: "function_call", call_id: "call_note", name: "note", arguments: '{"text":"Cedar"}' },
      { type: "function_call_output", call_id: "call_note", output: "saved Cedar" },
    ]);

    const reopened = await open(notes);
    let secondRun: Awaited<ReturnType<typeof runToEnd>>;
    try {
      expect(fixture.requests).toHaveLength(2);
      secondRun = await runToEnd(reopened, "What is our project called?");
    } finally {
      await reopened.close();
    }
    expect(secondRun.value?.text).toBe("Cedar.");
    expect(notes).toEqual(["Cedar"]);
    const thirdCall = fixture.requests[2]?.json as { input: unknown[] };
    expect(thirdCall.input).toEqual([
      // A reasoning model gets its instructions as a developer message.
      { role: "developer", content: expect.stringContaining("Take notes when asked.") },
      { role: "user", content: [{ type: "input_text", text: "Remember our project is Cedar." }] },
      {
        type: "reasoning",
        id: "rs_1",
        encrypted_content: "ENC-1",
        summary: [{ type: "summary_text", text: "Save it." }],
      },
      { type: "function_call", call_id: "call_note", name: "note", arguments: '{"text":"Cedar"}' },
      { type: "function_call_output", call_id: "call_note", output: "saved Cedar" },
      { role: "assistant", content: "Noted: Cedar." },
      { role: "user", content: [{ type: "input_text", text: "What is our project called?" }] },
    ]);
    for (const request of fixture.requests) expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify([firstRun.events, secondRun.events])).not.toContain(KEY);
    expect(await savedLog()).not.toContain(KEY);
  });

  it("ends the Run with model_auth on a refused key, keeping the key out of the events, the error and the saved log", async () => {
    fixture.handle((_request, reply) =>
      sendJson(reply, 401, {
        error: {
          message: `Incorrect API key provided: ${KEY}.`,
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      }),
    );
    const session = await open([]);
    let outcome: Awaited<ReturnType<typeof runToEnd>>;
    try {
      outcome = await runToEnd(session, "Hello");
    } finally {
      await session.close();
    }
    const end = outcome.events.at(-1);
    expect(end).toMatchObject({ kind: "run-end", status: "failed" });
    expect((outcome.error as { cause?: { code?: string } }).cause?.code).toBe("model_auth");
    expect(fixture.requests).toHaveLength(1);
    const error = outcome.error as Error;
    for (const text of [
      error.message,
      error.stack ?? "",
      JSON.stringify(error),
      JSON.stringify(outcome.events),
      await savedLog(),
    ]) {
      expect(text).not.toContain(KEY);
    }
  });
});
