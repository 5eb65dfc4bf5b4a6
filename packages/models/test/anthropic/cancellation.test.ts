import type { ModelStreamEvent } from "@castellan/harness";
import { anthropic, listModels } from "@castellan/models/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { closed } from "../support/connection.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { expectNoLeak, activeResources as resources, settle } from "../support/resources.ts";
import { answer, assertNoKey, FAKE_KEY, finalError, MODEL, request, sendAnswer, sendError } from "./support/wire.ts";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe("cancelling an Anthropic call", () => {
  it("ends a started stream promptly with an error event and leaves no socket or timer", async () => {
    let serverClosed: Promise<void> | undefined;
    fixture = await startHttpFixture((_request, response) => {
      serverClosed = closed(response);
      // The first text arrives, then the stream stays open until the client goes away.
      return sendAnswer(response, answer([{ text: ["first", "never"] }]).slice(0, 4), { hold: true });
    });
    const before = resources();
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url });
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    for await (const event of model.stream(request(), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(events[0]).toEqual({ type: "text-delta", text: "first" });
    expect(finalError(events).name).toBe("AbortError");
    expect(events).toHaveLength(2);
    assertNoKey(events);
    await serverClosed;
    await settle();
    expectNoLeak(before);
  });

  it("closes the connection when the consumer stops reading", async () => {
    let serverClosed: Promise<void> | undefined;
    fixture = await startHttpFixture((_request, response) => {
      serverClosed = closed(response);
      return sendAnswer(response, answer([{ text: ["first", "never"] }]).slice(0, 4), { hold: true });
    });
    const before = resources();
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url });
    for await (const event of model.stream(request(), { signal: new AbortController().signal })) {
      expect(event).toEqual({ type: "text-delta", text: "first" });
      break;
    }
    await serverClosed;
    await settle();
    expectNoLeak(before);
  });

  it("ends with the abort reason while waiting for a response", async () => {
    let arrived!: () => void;
    const requested = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let serverClosed: Promise<void> | undefined;
    fixture = await startHttpFixture((_request, response) => {
      serverClosed = closed(response);
      arrived();
      // Never answers: only the client going away ends this request.
      return serverClosed;
    });
    const before = resources();
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url });
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const collected = (async () => {
      const events: ModelStreamEvent[] = [];
      for await (const event of model.stream(request(), { signal: controller.signal })) events.push(event);
      return events;
    })();
    await requested;
    controller.abort(reason);
    const events = await collected;
    expect(events).toEqual([{ type: "error", error: reason }]);
    await serverClosed;
    await settle();
    expectNoLeak(before);
  });

  it("stops waiting to retry when aborted, sending no further request", async () => {
    let arrived!: () => void;
    const requested = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    fixture = await startHttpFixture((_request, response) => {
      arrived();
      // Half a minute's wait (the policy honours up to 60 s): only the abort can end it.
      sendError(response, 529, "overloaded_error", "Overloaded", { "retry-after": "30" });
    });
    const before = resources();
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url, maxRetries: 2 });
    const controller = new AbortController();
    const collected = (async () => {
      const events: ModelStreamEvent[] = [];
      for await (const event of model.stream(request(), { signal: controller.signal })) events.push(event);
      return events;
    })();
    await requested;
    controller.abort();
    const events = await collected;
    expect(finalError(events).name).toBe("AbortError");
    expect(fixture.requests).toHaveLength(1);
    await fixture.close();
    fixture = undefined;
    await settle();
    expectNoLeak(before);
  });

  it("ends at once with an already aborted signal, sending nothing", async () => {
    fixture = await startHttpFixture((_request, response) => sendAnswer(response, answer([{ text: ["x"] }])));
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: fixture.url });
    const events: ModelStreamEvent[] = [];
    for await (const event of model.stream(request(), { signal: AbortSignal.abort() })) events.push(event);
    expect(events).toHaveLength(1);
    expect(finalError(events).name).toBe("AbortError");
    expect(fixture.requests).toHaveLength(0);
  });
});

describe("cancelling listModels", () => {
  it("rejects with the abort reason while a page is loading, and leaves no socket or timer", async () => {
    let arrived!: () => void;
    const requested = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let serverClosed: Promise<void> | undefined;
    fixture = await startHttpFixture((_request, response) => {
      serverClosed = closed(response);
      arrived();
      return serverClosed;
    });
    const before = resources();
    const controller = new AbortController();
    const listing = listModels({ apiKey: FAKE_KEY, baseURL: fixture.url, signal: controller.signal });
    await requested;
    const reason = new Error("stop listing");
    controller.abort(reason);
    await expect(listing).rejects.toBe(reason);
    await serverClosed;
    await settle();
    expectNoLeak(before);
  });
});
