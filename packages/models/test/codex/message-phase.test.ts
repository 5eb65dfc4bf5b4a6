// Regression: the gpt-5.x codex models label each output message with a `phase` (`commentary`
// while working, `final_answer` at the end), and OpenAI asks clients to send it back on every
// assistant message. The phase used to be dropped, and the two messages' text ran together
// into one block ("Got itHere are…").
import { defineAgent, defineTool } from "@castellan/harness";
import { openSession } from "@castellan/node-runner";
import { afterEach, describe, expect, it } from "vitest";
import { codex } from "../../src/codex/index.js";
import { type HttpFixture, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { userRequest } from "../support/request.js";
import { neverAborts } from "../support/signal.js";
import { collect, FAKE_KEY, ResponsesStream } from "./support/responses-sse.js";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Serves one prepared stream per request, in order. */
async function serveInOrder(streams: readonly ResponsesStream[]): Promise<HttpFixture> {
  let next = 0;
  fixture = await startHttpFixture((_request, response) => {
    const stream = streams[next++];
    if (!stream) throw new Error("no more answers prepared");
    return sendSse(response, stream.events);
  });
  return fixture;
}

/** The `input` items of the request the fixture received at `index`. */
function inputOf(server: HttpFixture, index: number): unknown[] {
  const body = server.requests[index]?.json as { input?: unknown[] } | undefined;
  if (!body?.input) throw new Error(`request ${index} has no input`);
  return body.input;
}

describe("codex message phases", () => {
  it("keeps each message's text apart, with a marker carrying its phase after it", async () => {
    const stream = new ResponsesStream()
      .text(["Got ", "it."], "msg_a", "commentary")
      .text(["Here are ", "the results."], "msg_b", "final_answer");
    stream.completed();
    const server = await serveInOrder([stream]);
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5.3-codex", baseURL: server.url });
    const events = await collect(model.stream(userRequest("Go"), { signal: neverAborts() }));
    const marker = (phase: string) => ({
      type: "content",
      block: { type: "provider", provider: "openai-responses", data: { type: "message", phase } },
    });
    expect(events.filter((event) => event.type !== "usage")).toEqual([
      { type: "text-delta", text: "Got " },
      { type: "text-delta", text: "it." },
      marker("commentary"),
      { type: "text-delta", text: "Here are " },
      { type: "text-delta", text: "the results." },
      marker("final_answer"),
      { type: "finish", stopReason: "end" },
    ]);
  });

  it("sends every assistant message back as its own item with its phase, across turns and runs", async () => {
    const first = new ResponsesStream("resp_1")
      .text(["Got it, checking."], "msg_1", "commentary")
      .functionCall("call_1", "lookup", ['{"q":"cedar"}']);
    first.completed();
    const second = new ResponsesStream("resp_2")
      .text(["Checked."], "msg_2", "commentary")
      .text(["Here are the results."], "msg_3", "final_answer");
    second.completed();
    const third = new ResponsesStream("resp_3").text(["You are welcome."], "msg_4", "final_answer");
    third.completed();
    const server = await serveInOrder([first, second, third]);
    const lookup = defineTool({
      name: "lookup",
      description: "Look something up",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      readOnly: true,
      execute: () => "found",
    });
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5.3-codex", baseURL: server.url, maxRetries: 0 });
    const session = await openSession({ agent: defineAgent("test.codex-phase", { model, tools: [lookup] }) });
    try {
      await session.run("Find cedar.").result;
      await session.run("Thanks.").result;
    } finally {
      await session.close();
    }

    const assistant = (text: string, phase: string) => ({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
      phase,
    });
    expect(inputOf(server, 1)).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Find cedar." }] },
      assistant("Got it, checking.", "commentary"),
      first.output[1],
      { type: "function_call_output", call_id: "call_1", output: "found" },
    ]);
    expect(inputOf(server, 2).slice(1)).toEqual([
      assistant("Got it, checking.", "commentary"),
      first.output[1],
      { type: "function_call_output", call_id: "call_1", output: "found" },
      assistant("Checked.", "commentary"),
      assistant("Here are the results.", "final_answer"),
      { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks." }] },
    ]);
  });

  it("keeps messages without a phase apart too, and sends them back without one", async () => {
    const first = new ResponsesStream().text(["One."], "msg_1").text(["Two."], "msg_2");
    first.completed();
    const second = new ResponsesStream().text(["Three."]);
    second.completed();
    const server = await serveInOrder([first, second]);
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: server.url });
    const session = await openSession({ agent: defineAgent("test.codex-no-phase", { model }) });
    try {
      await session.run("Count.").result;
      await session.run("More.").result;
    } finally {
      await session.close();
    }
    const plain = (text: string) => ({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    });
    expect(inputOf(server, 1).slice(1, 3)).toEqual([plain("One."), plain("Two.")]);
    expect(server.requests[1]?.body).not.toContain('"phase"');
  });
});
