import { isModelProviderError, type ModelProviderError } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureHandler, type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import {
  answer,
  assertNoKey,
  collect,
  FAKE_KEY,
  finalError,
  MODEL,
  REQUEST_ID,
  sendAnswer,
  sendError,
} from "./support/wire.ts";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Answers the n-th request with the n-th handler (the last one repeats). */
async function serve(...handlers: FixtureHandler[]) {
  let calls = 0;
  fixture = await startHttpFixture((request, response) => {
    const handler = handlers[Math.min(calls++, handlers.length - 1)];
    return handler?.(request, response);
  });
  return fixture;
}

async function failure(maxRetries: number, ...handlers: FixtureHandler[]): Promise<ModelProviderError> {
  const server = await serve(...handlers);
  const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: server.url, maxRetries });
  const events = await collect(model);
  const error = finalError(events);
  if (!isModelProviderError(error)) throw new Error(`not a ModelProviderError: ${error}`);
  assertNoKey(events, error, error.stack);
  expect(error.provider).toBe("anthropic");
  return error;
}

describe("Anthropic error answers", () => {
  it("401 authentication_error is model_auth, not retried", async () => {
    const error = await failure(2, (_r, response) =>
      sendError(response, 401, "authentication_error", "invalid x-api-key"),
    );
    expect(error).toMatchObject({ code: "model_auth", status: 401, retryable: false, requestId: REQUEST_ID });
    expect(error.message).toContain("invalid x-api-key");
    expect(fixture?.requests).toHaveLength(1);
  });

  it("403 permission_error is model_auth", async () => {
    const error = await failure(0, (_r, response) => sendError(response, 403, "permission_error", "no access"));
    expect(error).toMatchObject({ code: "model_auth", status: 403 });
  });

  it("429 rate_limit_error is model_rate_limited with retryAfterMs from retry-after", async () => {
    const error = await failure(0, (_r, response) =>
      sendError(response, 429, "rate_limit_error", "slow down", { "retry-after": "7" }),
    );
    expect(error).toMatchObject({ code: "model_rate_limited", status: 429, retryable: true, retryAfterMs: 7_000 });
  });

  it("prefers retry-after-ms", async () => {
    const error = await failure(0, (_r, response) =>
      sendError(response, 429, "rate_limit_error", "slow down", { "retry-after-ms": "1500", "retry-after": "2" }),
    );
    expect(error.retryAfterMs).toBe(1_500);
  });

  it.each([
    [529, "overloaded_error", "model_overloaded"],
    [503, "api_error", "model_overloaded"],
    [500, "api_error", "model_server_error"],
    [504, "timeout_error", "model_server_error"],
    [404, "not_found_error", "model_unknown"],
    [413, "request_too_large", "model_context_overflow"],
    [400, "invalid_request_error", "model_bad_request"],
  ])("%i %s is %s", async (status, type, code) => {
    const error = await failure(0, (_r, response) => sendError(response, status, type, "something"));
    expect(error).toMatchObject({ code, status, requestId: REQUEST_ID });
  });

  it.each([
    "prompt is too long: 210000 tokens > 200000 maximum",
    "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again",
  ])("400 invalid_request_error saying %j is model_context_overflow", async (message) => {
    const error = await failure(0, (_r, response) => sendError(response, 400, "invalid_request_error", message));
    expect(error).toMatchObject({ code: "model_context_overflow", status: 400, retryable: false });
  });

  it("a refused connection is model_network", async () => {
    const closed = await startHttpFixture(() => undefined);
    const url = closed.url;
    await closed.close();
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: url, maxRetries: 0 });
    const events = await collect(model);
    expect(finalError(events)).toMatchObject({ code: "model_network", retryable: true });
    assertNoKey(events);
  });
});

describe("retries", () => {
  it("retries a 529 and then streams the answer", async () => {
    const server = await serve(
      (_r, response) => sendError(response, 529, "overloaded_error", "Overloaded", { "retry-after-ms": "1" }),
      (_r, response) => sendAnswer(response, answer([{ text: ["after retry"] }])),
    );
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: server.url });
    const events = await collect(model);
    expect(events[0]).toEqual({ type: "text-delta", text: "after retry" });
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    expect(server.requests).toHaveLength(2);
    // The SDK's own retries are off (each request is its first try); the adapter's policy retried.
    expect(server.requests.map((request) => request.headers["x-stainless-retry-count"])).toEqual(["0", "0"]);
  });

  it("stops after maxRetries and reports the last answer", async () => {
    const error = await failure(1, (_r, response) =>
      sendError(response, 529, "overloaded_error", "Overloaded", { "retry-after-ms": "1" }),
    );
    expect(error.code).toBe("model_overloaded");
    expect(fixture?.requests).toHaveLength(2);
  });

  it("does not retry a stream that drops after its first event", async () => {
    // message_start, ping, the text block's start and its first delta: the caller has "once".
    const server = await serve((_r, response) =>
      sendAnswer(response, answer([{ text: ["once", "never"] }]), { disconnectAfter: 4 }),
    );
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: server.url, maxRetries: 2 });
    const events = await collect(model);
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({ type: "text-delta", text: "once" });
    expect(finalError(events)).toMatchObject({ code: "model_network" });
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry an error event inside a started stream", async () => {
    const server = await serve((_r, response) =>
      sendAnswer(response, [
        ...answer([{ text: ["once"] }]).slice(0, 4),
        { event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      ]),
    );
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: server.url, maxRetries: 2 });
    expect(finalError(await collect(model))).toMatchObject({ code: "model_overloaded" });
    expect(server.requests).toHaveLength(1);
  });

  it("retries a stream that broke before the caller got any of it", async () => {
    const server = await serve(
      (_r, response) => sendAnswer(response, answer([{ text: ["lost"] }]), { disconnectAfter: 1 }),
      (_r, response) => sendAnswer(response, answer([{ text: ["after retry"] }])),
    );
    const model = anthropic({ apiKey: FAKE_KEY, model: MODEL, baseURL: server.url, maxRetries: 1 });
    const events = await collect(model);
    expect(events[0]).toEqual({ type: "text-delta", text: "after retry" });
    expect(server.requests).toHaveLength(2);
  });
});
