// Aborting a call: mid-stream, before the answer's headers, and while waiting to retry. Each
// ends the stream with an error event and closes the connection the server saw.
import type { ModelStreamEvent } from "@castellan/harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { closed } from "../support/connection.js";
import { type HttpFixture, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { chunk, collect, errorBody, errorOf, fakeKey, modelRequest } from "./chat-fixture.js";

let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await startHttpFixture(() => undefined);
});

afterEach(async () => {
  await fixture.close();
});

function model() {
  return openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model" });
}

describe("openaiCompatible cancellation", () => {
  it("aborting mid-stream ends with an error event carrying the reason and closes the connection", async () => {
    let connectionClosed: Promise<void> | undefined;
    fixture.handle((_request, response) => {
      connectionClosed = closed(response);
      return sendSse(response, [{ data: chunk({ role: "assistant", content: "Hel" }) }], { hold: true });
    });
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const events = await collect(model().stream(modelRequest(), { signal: controller.signal }), (event) => {
      if (event.type === "text-delta") controller.abort(reason);
    });
    expect(events[0]).toEqual({ type: "text-delta", text: "Hel" });
    expect(errorOf(events)).toBe(reason);
    await connectionClosed;
    expect(fixture.requests).toHaveLength(1);
  });

  it("aborting before the answer's headers ends the stream and closes the request", async () => {
    const controller = new AbortController();
    let connectionClosed: Promise<void> | undefined;
    fixture.handle((_request, response) => {
      connectionClosed = closed(response);
      // The server sees the request, then the test aborts; it never answers.
      controller.abort();
    });
    const events = await collect(model().stream(modelRequest(), { signal: controller.signal }));
    expect(events).toHaveLength(1);
    expect(errorOf(events).name).toBe("AbortError");
    await connectionClosed;
  });

  it("aborting while waiting to retry ends at once, without another request", async () => {
    const controller = new AbortController();
    const signal = controller.signal;
    // The wait before a retry listens for the abort on the caller's signal; abort as it starts
    // listening (the first listener added once the 429 was sent), so the 30-second wait the
    // server asks for is what gets cut short.
    let answered = false;
    const listen = signal.addEventListener.bind(signal);
    let waiting = false;
    signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
      listen(...args);
      if (args[0] === "abort" && answered && !waiting) {
        waiting = true;
        controller.abort();
      }
    }) as AbortSignal["addEventListener"];
    fixture.handle((_request, response) => {
      response.on("finish", () => {
        answered = true;
      });
      sendJson(response, 429, errorBody("Slow down", "requests", "rate_limit_exceeded"), { "retry-after": "30" });
    });
    const events = await collect(model().stream(modelRequest(), { signal }));
    expect(waiting).toBe(true);
    expect(events).toHaveLength(1);
    expect(errorOf(events).name).toBe("AbortError");
    expect(fixture.requests).toHaveLength(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(model().stream(modelRequest(), { signal: controller.signal }));
    expect(errorOf(events).name).toBe("AbortError");
    expect(fixture.requests).toHaveLength(0);
  });

  it("a consumer that stops iterating closes the connection", async () => {
    let connectionClosed: Promise<void> | undefined;
    fixture.handle((_request, response) => {
      connectionClosed = closed(response);
      return sendSse(response, [{ data: chunk({ content: "first" }) }], { hold: true });
    });
    const read: ModelStreamEvent[] = [];
    for await (const event of model().stream(modelRequest(), { signal: new AbortController().signal })) {
      read.push(event);
      break;
    }
    expect(read).toEqual([{ type: "text-delta", text: "first" }]);
    // The answer is held open, so only the client can end it: the server seeing it close is the proof.
    await connectionClosed;
    expect(fixture.requests).toHaveLength(1);
  });
});
