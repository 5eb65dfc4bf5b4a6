// Conformance, failures: broken streams and the providers' HTTP error answers, each ending the
// stream with one typed error (its code, status, retry behaviour), and the key kept out of all
// of it. Every adapter (drivers/index.ts) runs every scenario against its own wire format.
import { isModelProviderError, type ModelErrorCode, type ModelProviderError } from "@castellan/harness";
import { afterEach, describe, expect } from "vitest";
import type { FixtureHandler } from "../support/http-fixture.ts";
import { userRequest } from "../support/request.ts";
import { neverAborts } from "../support/signal.ts";
import { collect } from "../support/stream.ts";
import type { BindOptions, ConformanceDriver, ErrorKind } from "./driver.ts";
import { drivers } from "./drivers/index.ts";
import { expectation } from "./exceptions.ts";
import { fail, type ScenarioFixture, serve, stream } from "./support/fixture.ts";
import { KEY } from "./support/key.ts";
import { assertNoKey } from "./support/no-key.ts";
import { scenario } from "./support/scenario.ts";

let fixture: ScenarioFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** One call against `handlers`; its events, final error and the model calls the server saw. */
async function call(driver: ConformanceDriver, handlers: FixtureHandler[], options: BindOptions = {}) {
  fixture = await serve(driver, ...handlers);
  const events = await collect(driver.bind(fixture.url, options).stream(userRequest("Hi"), { signal: neverAborts() }));
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected the stream to end with an error: ${JSON.stringify(last)}`);
  expect(events.filter((event) => event.type === "error")).toHaveLength(1);
  expect(events.some((event) => event.type === "finish")).toBe(false);
  if (!isModelProviderError(last.error)) throw new Error(`not a ModelProviderError: ${String(last.error)}`);
  assertNoKey(events);
  return { events, error: last.error, requests: fixture.inference().length };
}

/** The text the events streamed. */
const textOf = (events: readonly { type: string; text?: string }[]) =>
  events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");

describe.each(drivers.map((driver) => [driver.name, driver] as const))("%s", (_name, driver) => {
  const expectError = (error: ModelProviderError, code: ModelErrorCode, fields: Partial<ModelProviderError> = {}) =>
    expect(error).toMatchObject({ code, provider: driver.provider, ...fields });

  scenario("malformed stream", async () => {
    const { events, error, requests } = await call(
      driver,
      [stream(driver, [...driver.partial("Hi"), driver.brokenEvent()])],
      { maxRetries: 2 },
    );
    expect(textOf(events)).toBe("Hi");
    expectError(error, "model_stream_malformed");
    expect(requests).toBe(1);
  });

  scenario("truncated stream", async () => {
    const { events, error } = await call(driver, [stream(driver, driver.partial("Hi"))]);
    expect(textOf(events)).toBe("Hi");
    expectError(error, "model_stream_malformed");
  });

  scenario("disconnect mid-stream", async () => {
    const events = [...driver.partial("Hi"), ...driver.text(["never"])];
    const cut = driver.partial("Hi").length;
    const result = await call(driver, [stream(driver, events, { disconnectAfter: cut })], { maxRetries: 2 });
    expect(textOf(result.events)).toBe("Hi");
    expectError(result.error, "model_network", { retryable: true });
    expect(result.requests).toBe(1);
  });

  const statusScenario = (
    name: Parameters<typeof scenario>[0],
    kind: ErrorKind,
    status: number,
    code: ModelErrorCode,
    retried: boolean,
  ) =>
    scenario(name, async () => {
      // Answered every time: a retryable failure is tried once more, then reported.
      const headers = { "retry-after-ms": "0" };
      const { error, requests } = await call(driver, [fail(driver, kind, "Refused.", headers)], { maxRetries: 1 });
      expectError(error, code, { status, retryable: retried });
      expect(requests).toBe(retried ? 2 : 1);
    });

  scenario("HTTP 401", async () => {
    // A misbehaving server echoes the key it was sent.
    const { error, requests } = await call(driver, [fail(driver, "auth", `Incorrect API key provided: ${KEY}.`)], {
      maxRetries: 2,
    });
    expectError(error, "model_auth", { status: 401, retryable: false });
    expect(requests).toBe(1);
    assertNoKey(error, error.message, error.stack);
  });

  statusScenario("HTTP 403", "forbidden", 403, "model_auth", false);

  scenario("HTTP 404 unknown model", async () => {
    const expected = expectation(driver.name, "HTTP 404 unknown model", { status: 404, inferenceRequests: 1 });
    const { error, requests } = await call(driver, [fail(driver, "unknown-model", "The model does not exist.")], {
      model: "unknown-model-1",
      maxRetries: 2,
    });
    expectError(error, "model_unknown", { status: expected.status, retryable: false });
    expect(requests).toBe(expected.inferenceRequests);
  });

  scenario("too long", async () => {
    const { code } = expectation(driver.name, "too long", { code: "model_context_overflow" });
    const { error, requests } = await call(driver, [fail(driver, "too-long", "Shorten it.")], { maxRetries: 2 });
    expectError(error, code, { retryable: false });
    expect([400, 413]).toContain(error.status);
    expect(requests).toBe(1);
  });

  scenario("HTTP 429 with retry-after", async () => {
    const limited = await call(driver, [fail(driver, "rate-limited", "Slow down.", { "retry-after": "7" })]);
    expectError(limited.error, "model_rate_limited", { status: 429, retryable: true, retryAfterMs: 7_000 });
    await fixture?.close();
    // Retried after the wait it asks for (none here), then the answer streams.
    fixture = await serve(
      driver,
      fail(driver, "rate-limited", "Slow down.", { "retry-after": "0" }),
      stream(driver, driver.text(["fine"])),
    );
    const events = await collect(
      driver.bind(fixture.url, { maxRetries: 2 }).stream(userRequest("Hi"), { signal: neverAborts() }),
    );
    expect(textOf(events)).toBe("fine");
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    expect(fixture.inference()).toHaveLength(2);
  });

  scenario("HTTP 429 without retry-after", async () => {
    // The first backoff step (0.5 s) before the one retry.
    const { error, requests } = await call(driver, [fail(driver, "rate-limited", "Slow down.")], { maxRetries: 1 });
    expectError(error, "model_rate_limited", { status: 429, retryable: true, retryAfterMs: undefined });
    expect(requests).toBe(2);
  });

  statusScenario("HTTP 500", "server", 500, "model_server_error", true);
  statusScenario("HTTP 503", "unavailable", 503, "model_overloaded", true);
  statusScenario("HTTP 529", "overloaded", 529, "model_overloaded", true);
});
