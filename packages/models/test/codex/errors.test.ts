import { isModelProviderError, type ModelProviderError, type ModelRequest } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import { type CodexOptions, codex } from "../../src/codex/index.js";
import { type FixtureHandler, type HttpFixture, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { collect, errorOf, errorTexts, FAKE_KEY, ResponsesStream, textOfEvents } from "./support/responses-sse.js";

const request: ModelRequest = {
  system: "",
  context: "",
  messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
  tools: [],
  hostedTools: [],
};
let fixture: HttpFixture | undefined;
const seen: unknown[] = [];
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  // No error of any test shows the credential.
  for (const error of seen.splice(0)) expect(errorTexts(error)).not.toContain(FAKE_KEY);
});

/** Serves `handler` and runs one call; returns its events, final error and the request count. */
async function call(handler: FixtureHandler, options: Partial<CodexOptions> = {}) {
  fixture = await startHttpFixture(handler);
  const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: fixture.url, ...options });
  const events = await collect(model.stream(request, { signal: new AbortController().signal }));
  const error = errorOf(events) as ModelProviderError | undefined;
  seen.push(error);
  return { events, error, requests: fixture.requests.length };
}

/** An OpenAI error body; the message echoes the key, as a misbehaving proxy might. */
const errorBody = (code: string | null, type = "invalid_request_error") => ({
  error: { message: `Refused for key ${FAKE_KEY}.`, type, param: null, code },
});

describe("codex HTTP errors", () => {
  it("401 and 403 are model_auth, not retried, with the credential redacted", async () => {
    for (const status of [401, 403]) {
      const { events, error, requests } = await call((_r, response) =>
        sendJson(response, status, errorBody("invalid_api_key"), { "x-request-id": "req_auth" }),
      );
      expect(events).toHaveLength(1);
      expect(isModelProviderError(error, "model_auth")).toBe(true);
      expect(error?.status).toBe(status);
      expect(error?.retryable).toBe(false);
      expect(error?.requestId).toBe("req_auth");
      expect(error?.provider).toBe("codex");
      expect(error?.message).toContain("[redacted]");
      expect(requests).toBe(1);
      await fixture?.close();
    }
  });

  it("429 is model_rate_limited with retryAfterMs, retried at most maxRetries times", async () => {
    const limited: FixtureHandler = (_r, response) =>
      sendJson(response, 429, errorBody("rate_limit_exceeded", "requests"), { "retry-after": "0" });
    const { error, requests } = await call(limited);
    expect(isModelProviderError(error, "model_rate_limited")).toBe(true);
    expect(error?.retryAfterMs).toBe(0);
    expect(requests).toBe(3);

    const once = await call(limited, { maxRetries: 0 });
    expect(once.requests).toBe(1);

    const slow = await call((_r, response) => sendJson(response, 429, errorBody(null), { "retry-after-ms": "1500" }), {
      maxRetries: 0,
    });
    expect(slow.error?.retryAfterMs).toBe(1500);
  });

  it("a 429 followed by success streams normally", async () => {
    let count = 0;
    const { events, requests } = await call((_r, response) =>
      count++ === 0
        ? sendJson(response, 429, errorBody("rate_limit_exceeded"), { "retry-after-ms": "0" })
        : sendSse(response, new ResponsesStream().text(["ok"]).completed()),
    );
    expect(textOfEvents(events)).toBe("ok");
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    expect(requests).toBe(2);
  });

  it("an exhausted quota is model_rate_limited but not retried", async () => {
    const { error, requests } = await call((_r, response) =>
      sendJson(response, 429, errorBody("insufficient_quota", "insufficient_quota"), { "retry-after": "0" }),
    );
    expect(isModelProviderError(error, "model_rate_limited")).toBe(true);
    expect(error?.retryable).toBe(false);
    expect(requests).toBe(1);
  });

  it("500 is model_server_error and retried; 503 and 529 are model_overloaded", async () => {
    const server = await call((_r, response) =>
      sendJson(response, 500, errorBody("server_error", "server_error"), { "retry-after-ms": "0" }),
    );
    expect(isModelProviderError(server.error, "model_server_error")).toBe(true);
    expect(server.error?.retryable).toBe(true);
    expect(server.requests).toBe(3);
    for (const status of [503, 529]) {
      const { error } = await call((_r, response) => sendJson(response, status, errorBody(null)), { maxRetries: 0 });
      expect(isModelProviderError(error, "model_overloaded")).toBe(true);
      expect(error?.status).toBe(status);
    }
  });

  it("400 context_length_exceeded is model_context_overflow; other 4xx are bad requests or unknown models", async () => {
    const overflow = await call((_r, response) => sendJson(response, 400, errorBody("context_length_exceeded")));
    expect(isModelProviderError(overflow.error, "model_context_overflow")).toBe(true);
    expect(overflow.requests).toBe(1);
    const unknown = await call((_r, response) => sendJson(response, 404, errorBody("model_not_found")));
    expect(isModelProviderError(unknown.error, "model_unknown")).toBe(true);
    const bad = await call((_r, response) => sendJson(response, 400, errorBody("invalid_value")));
    expect(isModelProviderError(bad.error, "model_bad_request")).toBe(true);
    expect(bad.requests).toBe(1);
  });
});

describe("codex stream failures", () => {
  it("response.failed maps its code: context overflow, rate limit, server error", async () => {
    const cases: [string | null, string][] = [
      ["context_length_exceeded", "model_context_overflow"],
      ["rate_limit_exceeded", "model_rate_limited"],
      ["server_error", "model_server_error"],
      [null, "model_server_error"],
      ["invalid_prompt", "model_bad_request"],
    ];
    for (const [code, expected] of cases) {
      const { error } = await call(
        (_r, response) => sendSse(response, new ResponsesStream().failed(code, `bad ${FAKE_KEY}`)),
        { maxRetries: 0 },
      );
      expect(error?.code).toBe(expected);
    }
  });

  it("a failure after text was streamed ends the stream and is not retried", async () => {
    const { events, error, requests } = await call((_r, response) =>
      sendSse(response, new ResponsesStream().text(["partial"]).failed("server_error", "boom")),
    );
    expect(textOfEvents(events)).toBe("partial");
    expect(isModelProviderError(error, "model_server_error")).toBe(true);
    expect(requests).toBe(1);
  });

  it("an error event (named or data-only) is typed by its code", async () => {
    const named = new ResponsesStream().text(["x"]);
    named.emit("error", { code: "context_length_exceeded", message: "too long", param: null });
    const first = await call((_r, response) => sendSse(response, named.events));
    expect(isModelProviderError(first.error, "model_context_overflow")).toBe(true);

    const bare = new ResponsesStream();
    const events = bare.events.map((event) => ({ data: event.data }));
    events.push({ data: { type: "error", code: "rate_limit_exceeded", message: "slow down", sequence_number: 9 } });
    const second = await call((_r, response) => sendSse(response, events), { maxRetries: 0 });
    expect(isModelProviderError(second.error, "model_rate_limited")).toBe(true);
  });

  it("bad JSON and a missing response.completed are model_stream_malformed; unparsable arguments are a malformed call", async () => {
    const json = new ResponsesStream().text(["a"]);
    json.events.push({ event: "response.output_text.delta", data: "{not json" });
    const badJson = await call((_r, response) => sendSse(response, json.events));
    expect(isModelProviderError(badJson.error, "model_stream_malformed")).toBe(true);
    expect(textOfEvents(badJson.events)).toBe("a");

    const args = await call((_r, response) =>
      sendSse(response, new ResponsesStream().functionCall("c1", "lookup", ['{"q":']).completed()),
    );
    expect(args.error).toBeUndefined();
    expect(args.events.find((event) => event.type === "tool-call")).toEqual({
      type: "tool-call",
      toolCall: { id: "c1", name: "lookup", input: {}, malformedInput: '{"q":' },
    });

    const truncated = await call((_r, response) => sendSse(response, new ResponsesStream().text(["cut"]).events));
    expect(isModelProviderError(truncated.error, "model_stream_malformed")).toBe(true);
    expect(textOfEvents(truncated.events)).toBe("cut");
    expect(truncated.events.some((event) => event.type === "finish")).toBe(false);

    const untyped = await call((_r, response) => sendSse(response, [{ event: "x", data: { sequence_number: 0 } }]), {
      maxRetries: 0,
    });
    expect(isModelProviderError(untyped.error, "model_stream_malformed")).toBe(true);
  });

  it("a mid-stream disconnect is model_network after the streamed text, not retried", async () => {
    const stream = new ResponsesStream().text(["one ", "two ", "three"]).completed();
    const { events, error, requests } = await call((_r, response) => sendSse(response, stream, { disconnectAfter: 5 }));
    expect(textOfEvents(events)).toBe("one ");
    expect(isModelProviderError(error, "model_network")).toBe(true);
    expect(events.some((event) => event.type === "finish")).toBe(false);
    expect(requests).toBe(1);
  });

  it("a connection dropped before any event is retried", async () => {
    let count = 0;
    const { events, requests } = await call(
      (_r, response) => {
        if (count++ === 0) response.socket?.destroy();
        else return sendSse(response, new ResponsesStream().text(["again"]).completed());
      },
      { maxRetries: 1 },
    );
    expect(textOfEvents(events)).toBe("again");
    expect(requests).toBe(2);
  });
});
