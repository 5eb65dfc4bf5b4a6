// Failures on the wire: typed errors from status codes and error bodies, retry-after, bounded
// retries only before anything was streamed, malformed and truncated streams, disconnects, and
// the key kept out of every error.
import type { ModelStreamEvent } from "@castellan/harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import {
  type FixtureHandler,
  type HttpFixture,
  type SseEvent,
  sendJson,
  sendSse,
  startHttpFixture,
} from "../support/http-fixture.js";
import {
  chatRequests,
  chunk,
  collect,
  errorBody,
  errorOf,
  errorText,
  fakeKey,
  modelRequest,
  never,
  textAnswer,
  textOf,
} from "./chat-fixture.js";

let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) => sendSse(response, textAnswer(["ok"])));
});

afterEach(async () => {
  await fixture.close();
});

function model(options: Partial<Parameters<typeof openaiCompatible>[0]> = {}) {
  return openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model", ...options });
}

async function run(handler: FixtureHandler, options = {}): Promise<ModelStreamEvent[]> {
  fixture.handle(handler);
  return collect(model(options).stream(modelRequest(), { signal: never }));
}

/** Answers the queued handlers in order, the last one for every later request. */
function inTurn(...handlers: FixtureHandler[]): FixtureHandler {
  let next = 0;
  return (request, response) => handlers[Math.min(next++, handlers.length - 1)]!(request, response);
}

const sse =
  (events: readonly SseEvent[], options?: Parameters<typeof sendSse>[2]): FixtureHandler =>
  (_request, response) =>
    sendSse(response, events, options);

describe("openaiCompatible errors", () => {
  it.each([
    [401, "invalid_request_error", "invalid_api_key", "model_auth", false],
    [403, "permission_error", null, "model_auth", false],
    [400, "invalid_request_error", "context_length_exceeded", "model_context_overflow", false],
    [404, "invalid_request_error", "model_not_found", "model_unknown", false],
    [422, "invalid_request_error", null, "model_bad_request", false],
    [500, "server_error", null, "model_server_error", true],
    [503, "server_error", null, "model_overloaded", true],
    [529, "overloaded_error", null, "model_overloaded", true],
  ])("HTTP %i (%s, %s) ends the stream with %s", async (status, type, code, expected, retryable) => {
    const events = await run(
      (_request, response) => sendJson(response, status, errorBody(`Failed for ${fakeKey}`, type, code)),
      {
        maxRetries: 0,
      },
    );
    expect(events).toHaveLength(1);
    const error = errorOf(events);
    expect(error.code).toBe(expected);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
    expect(error.provider).toBe("openai-compatible");
    expect(error.message).toContain(`HTTP ${status}`);
    expect(errorText(error)).not.toContain(fakeKey);
  });

  it("does not retry a refused key", async () => {
    const events = await run((_request, response) =>
      sendJson(response, 401, errorBody("Incorrect API key provided.", "invalid_request_error", "invalid_api_key")),
    );
    expect(errorOf(events).code).toBe("model_auth");
    expect(fixture.requests).toHaveLength(1);
  });

  it("reads retry-after in seconds and retry-after-ms", async () => {
    const seconds = errorOf(
      await run(
        (_request, response) =>
          sendJson(response, 429, errorBody("Slow down", "requests", "rate_limit_exceeded"), { "retry-after": "7" }),
        {
          maxRetries: 0,
        },
      ),
    );
    expect(seconds).toMatchObject({ code: "model_rate_limited", retryable: true, retryAfterMs: 7_000 });
    const milliseconds = errorOf(
      await run(
        (_request, response) =>
          sendJson(response, 429, errorBody("Slow down", "requests", null), {
            "retry-after-ms": "250",
            "retry-after": "9",
          }),
        { maxRetries: 0 },
      ),
    );
    expect(milliseconds.retryAfterMs).toBe(250);
  });

  it("retries a 429 after retry-after-ms and then streams the answer", async () => {
    const limited: FixtureHandler = (_request, response) =>
      sendJson(response, 429, errorBody("Slow down", "requests", "rate_limit_exceeded"), { "retry-after-ms": "0" });
    const events = await run(inTurn(limited, limited, sse(textAnswer(["fine"]))));
    expect(textOf(events)).toBe("fine");
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    expect(chatRequests(fixture.requests)).toHaveLength(3);
  });

  it("gives up after maxRetries further attempts", async () => {
    const events = await run(
      (_request, response) =>
        sendJson(response, 503, errorBody("Overloaded", "server_error"), { "retry-after-ms": "0" }),
      { maxRetries: 1 },
    );
    expect(errorOf(events).code).toBe("model_overloaded");
    expect(fixture.requests).toHaveLength(2);
  });

  it("does not retry a rate limit whose quota is exhausted", async () => {
    const events = await run((_request, response) =>
      sendJson(
        response,
        429,
        errorBody("You exceeded your current quota.", "insufficient_quota", "insufficient_quota"),
        {
          "retry-after-ms": "0",
        },
      ),
    );
    expect(errorOf(events)).toMatchObject({ code: "model_rate_limited", retryable: false });
    expect(fixture.requests).toHaveLength(1);
  });

  it("ends with model_stream_malformed for an event that is not JSON, without retrying", async () => {
    const events = await run(sse([{ data: chunk({ content: "Hi" }) }, { data: "{not json" }]));
    expect(events[0]).toEqual({ type: "text-delta", text: "Hi" });
    expect(errorOf(events).code).toBe("model_stream_malformed");
    expect(fixture.requests).toHaveLength(1);
  });

  it("ends with model_stream_malformed when data: [DONE] never comes", async () => {
    const events = await run(sse([{ data: chunk({ content: "Hi" }) }, { data: chunk({}, "stop") }]));
    const error = errorOf(events);
    expect(error.code).toBe("model_stream_malformed");
    expect(error.message).toContain("[DONE]");
    expect(events.some((event) => event.type === "finish")).toBe(false);
  });

  it("ends with model_stream_malformed for [DONE] without a finish reason", async () => {
    const events = await run(sse([{ data: chunk({ content: "Hi" }) }, { data: "[DONE]" }]));
    expect(errorOf(events).code).toBe("model_stream_malformed");
  });

  it("ends with model_stream_malformed when the answer is not an event stream", async () => {
    const events = await run((_request, response) => sendJson(response, 200, { choices: [] }));
    expect(errorOf(events).code).toBe("model_stream_malformed");
  });

  it("ends with model_network on a mid-stream disconnect, keeping what was streamed and not retrying", async () => {
    const events = await run(sse(textAnswer(["Hel", "lo"]), { disconnectAfter: 2 }));
    expect(textOf(events)).toBe("Hel");
    const error = errorOf(events);
    expect(error).toMatchObject({ code: "model_network", retryable: true });
    expect(chatRequests(fixture.requests)).toHaveLength(1);
  });

  it("retries a connection that broke before anything was streamed", async () => {
    const events = await run(
      inTurn(
        (_request, response) => {
          response.socket?.destroy();
        },
        sse(textAnswer(["after the retry"])),
      ),
      // The connection broke without a retry-after: the first backoff step (0.5 s) applies.
      { maxRetries: 1 },
    );
    expect(textOf(events)).toBe("after the retry");
    expect(fixture.requests).toHaveLength(2);
  });

  it("classifies an error event inside the stream", async () => {
    const events = await run(
      sse([
        { data: chunk({ content: "Partial" }) },
        { data: { error: { message: `Upstream failed for ${fakeKey}`, type: "server_error", code: null } } },
      ]),
    );
    const error = errorOf(events);
    expect(error.code).toBe("model_server_error");
    expect(errorText(error)).not.toContain(fakeKey);
    expect(fixture.requests).toHaveLength(1);
  });

  it("ends with model_network when nothing listens at the base URL", async () => {
    const closed = fixture.url;
    await fixture.close();
    const events = await collect(
      openaiCompatible({ baseURL: `${closed}/v1`, apiKey: fakeKey, model: "m", maxRetries: 0 }).stream(modelRequest(), {
        signal: never,
      }),
    );
    const error = errorOf(events);
    expect(error.code).toBe("model_network");
    expect(errorText(error)).not.toContain(fakeKey);
    fixture = await startHttpFixture(() => undefined);
  });

  it("refuses hosted tools with model_unsupported before any request", async () => {
    const events = await collect(
      model().stream(modelRequest({ hostedTools: [{ name: "web_search", hosted: { kind: "web-search" } }] }), {
        signal: never,
      }),
    );
    const error = errorOf(events);
    expect(error.code).toBe("model_unsupported");
    expect(error.message).toContain("web_search");
    expect(fixture.requests).toHaveLength(0);
  });
});
