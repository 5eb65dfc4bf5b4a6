import type { ModelRequest, ModelStreamEvent } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import { codex } from "../../src/codex/index.js";
import { type HttpFixture, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { userRequest } from "../support/request.js";
import { activeTimers } from "../support/resources.js";
import { errorOf, FAKE_KEY, ResponsesStream } from "./support/responses-sse.js";

const request: ModelRequest = userRequest("Hi");
let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A promise settled when the server sees the client's connection close. */
function serverSeesClose() {
  let closed!: () => void;
  const promise = new Promise<void>((resolve) => {
    closed = resolve;
  });
  return { promise, closed };
}

describe("codex cancellation", () => {
  it("aborting mid-stream ends with an error event and closes the connection, leaving no timer", async () => {
    const gone = serverSeesClose();
    fixture = await startHttpFixture(async (_request, response) => {
      // Listen first: the client may go away while the events are still being written.
      response.on("close", gone.closed);
      await sendSse(response, new ResponsesStream().text(["first"]).events, { hold: true });
    });
    const timersBefore = activeTimers();
    const controller = new AbortController();
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url });
    const events: ModelStreamEvent[] = [];
    for await (const event of model.stream(request, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort(new Error("user stopped"));
    }
    expect(events.map((event) => event.type)).toEqual(["text-delta", "error"]);
    expect(errorOf(events)?.message).toBe("user stopped");
    // The server seeing the connection close is the proof that the client let go of its socket.
    await gone.promise;
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    expect(fixture.requests).toHaveLength(1);
  });

  it("aborting before the answer's headers ends with an error event and closes the request", async () => {
    const gone = serverSeesClose();
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    fixture = await startHttpFixture((_request, response) => {
      response.on("close", gone.closed);
      received();
    });
    const controller = new AbortController();
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url });
    const pending = (async () => {
      const events: ModelStreamEvent[] = [];
      for await (const event of model.stream(request, { signal: controller.signal })) events.push(event);
      return events;
    })();
    await arrived;
    controller.abort(new Error("stop waiting"));
    const events = await pending;
    expect(events).toHaveLength(1);
    expect(errorOf(events)?.message).toBe("stop waiting");
    await gone.promise;
  });

  it("aborting while waiting to retry ends at once, with no timer left behind", { timeout: 10_000 }, async () => {
    let answered!: () => void;
    const limited = new Promise<void>((resolve) => {
      answered = resolve;
    });
    fixture = await startHttpFixture((_request, response) => {
      response.on("finish", () => answered());
      sendJson(
        response,
        429,
        { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } },
        {
          "retry-after": "30",
        },
      );
    });
    const timersBefore = activeTimers();
    const controller = new AbortController();
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url });
    const pending = (async () => {
      const events: ModelStreamEvent[] = [];
      for await (const event of model.stream(request, { signal: controller.signal })) events.push(event);
      return events;
    })();
    await limited;
    controller.abort(new Error("no more waiting"));
    const events = await pending;
    expect(events).toHaveLength(1);
    expect(errorOf(events)?.message).toBe("no more waiting");
    expect(fixture.requests).toHaveLength(1);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it("a consumer that stops reading closes the connection", async () => {
    const gone = serverSeesClose();
    fixture = await startHttpFixture(async (_request, response) => {
      response.on("close", gone.closed);
      await sendSse(response, new ResponsesStream().text(["a", "b"]).events, { hold: true });
    });
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url });
    const read: ModelStreamEvent[] = [];
    for await (const event of model.stream(request, { signal: new AbortController().signal })) {
      read.push(event);
      if (event.type === "text-delta") break;
    }
    expect(read).toEqual([{ type: "text-delta", text: "a" }]);
    // The answer is held open, so only the client can end it: the server seeing it close is the proof.
    await gone.promise;
    expect(fixture.requests).toHaveLength(1);
  });

  it("an already-aborted signal sends nothing", async () => {
    fixture = await startHttpFixture((_request, response) => sendSse(response, new ResponsesStream().completed()));
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url });
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    const events: ModelStreamEvent[] = [];
    for await (const event of model.stream(request, { signal: controller.signal })) events.push(event);
    expect(errorOf(events)?.message).toBe("too late");
    expect(fixture.requests).toHaveLength(0);
  });
});
