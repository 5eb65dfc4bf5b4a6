// The openrouter binding against the loopback server: attribution headers, the catalog check
// before any inference (at most once, shared, cancellable), context window and cost from the
// catalog, OpenRouter's stream quirks, cancellation, and an agent loop through node-runner.
import { defineAgent } from "@castellan/harness";
import { openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listOpenRouterModels, type OpenRouterOptions, openrouter } from "../../src/openrouter/index.js";
import {
  chatRequests,
  chunk,
  collect,
  done,
  errorOf,
  errorText,
  fakeKey,
  modelRequest,
  never,
  textAnswer,
  textOf,
  usageChunk,
} from "../openai-compatible/chat-fixture.js";
import { closed } from "../support/connection.js";
import { type FixtureHandler, type HttpFixture, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { catalog } from "./catalog-fixture.js";

let fixture: HttpFixture;
/** Answers POST /chat/completions; GET /models always answers the catalog. */
let inference: FixtureHandler;
/** Replaces the catalog answer when set. */
let catalogAnswer: FixtureHandler | undefined;

beforeEach(async () => {
  inference = (_request, response) => sendSse(response, textAnswer(["Hi there"], [1_000, 100]));
  catalogAnswer = undefined;
  fixture = await startHttpFixture((request, response) => {
    if (request.method === "GET" && request.path === "/api/v1/models") {
      return catalogAnswer ? catalogAnswer(request, response) : sendJson(response, 200, catalog);
    }
    return inference(request, response);
  });
});

afterEach(async () => {
  await fixture.close();
});

function model(options: Partial<OpenRouterOptions> = {}) {
  return openrouter({ apiKey: fakeKey, model: "acme/vision-pro", baseURL: `${fixture.url}/api/v1`, ...options });
}

const catalogReads = () => fixture.requests.filter((request) => request.path === "/api/v1/models").length;

describe("openrouter", () => {
  it("sends the attribution headers and the key to the compatible Chat Completions endpoint", async () => {
    const events = await collect(
      model({ appName: "Castellan Tests", appUrl: "https://castellan.example" }).stream(modelRequest(), {
        signal: never,
      }),
    );
    expect(textOf(events)).toBe("Hi there");
    const chat = fixture.requests.find((request) => request.method === "POST");
    expect(chat?.path).toBe("/api/v1/chat/completions");
    expect(chat?.headers["x-title"]).toBe("Castellan Tests");
    expect(chat?.headers["http-referer"]).toBe("https://castellan.example");
    expect(chat?.headers.authorization).toBe(`Bearer ${fakeKey}`);
    expect(chat?.json).toMatchObject({
      model: "acme/vision-pro",
      stream: true,
      stream_options: { include_usage: true },
    });
    // The catalog is public: it is read without the key.
    expect(fixture.requests.find((request) => request.method === "GET")?.headers.authorization).toBeUndefined();
  });

  it("rejects an unknown model id before any inference request", async () => {
    const binding = model({ model: "acme/does-not-exist" });
    const events = await collect(binding.stream(modelRequest(), { signal: never }));
    const error = errorOf(events);
    expect(error).toMatchObject({ code: "model_unknown", provider: "openrouter", retryable: false });
    expect(error.message).toContain("acme/does-not-exist");
    expect(chatRequests(fixture.requests)).toHaveLength(0);
    await expect(binding.check()).rejects.toMatchObject({ code: "model_unknown" });
    expect(catalogReads()).toBe(1);
  });

  it("reads the catalog once per binding, shared by concurrent checks and later streams", async () => {
    const binding = model();
    // Unknown until the catalog is read.
    expect(binding.contextWindow).toBeUndefined();
    const [a, b] = await Promise.all([binding.check(), binding.check()]);
    expect(a).toBe(b);
    expect(binding.contextWindow).toBe(200_000);
    await collect(binding.stream(modelRequest(), { signal: never }));
    await collect(binding.stream(modelRequest(), { signal: never }));
    expect(catalogReads()).toBe(1);
    expect(chatRequests(fixture.requests)).toHaveLength(2);
  });

  it("reports the cost from the catalog's prices", async () => {
    inference = (_request, response) =>
      sendSse(response, [{ data: chunk({ content: "x" }, "stop") }, { data: usageChunk(1_000, 100, 200) }, done]);
    const events = await collect(model().stream(modelRequest(), { signal: never }));
    expect(events.find((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: {
        inputTokens: 1_000,
        outputTokens: 100,
        cacheReadTokens: 200,
        costUsd: (800 * 3 + 100 * 15 + 200 * 0.3) / 1e6,
      },
    });
  });

  it("takes a catalog entry the application already read, and explicit overrides", async () => {
    const entry = (await listOpenRouterModels({ baseURL: `${fixture.url}/api/v1`, signal: never })).find(
      (candidate) => candidate.id === "acme/text-lite",
    );
    const binding = model({ model: "acme/text-lite", catalogEntry: entry });
    expect(binding.contextWindow).toBe(32_768);
    expect(binding.specifier).toBe("openrouter/acme/text-lite");
    await collect(binding.stream(modelRequest(), { signal: never }));
    expect(catalogReads()).toBe(1);
    expect(model({ contextWindow: 50_000 }).contextWindow).toBe(50_000);
    expect(() => model({ catalogEntry: entry })).toThrow(/catalogEntry/);
    expect(() => model({ appName: "Caf\u00e9" })).toThrow(/printable ASCII/);
  });

  it("a caller giving up does not stop the catalog read another caller waits for", async () => {
    const binding = model();
    const first = new AbortController();
    catalogAnswer = (_request, response) => {
      first.abort(new Error("first gave up"));
      sendJson(response, 200, catalog);
    };
    const [gaveUp, waited] = await Promise.allSettled([binding.check({ signal: first.signal }), binding.check()]);
    expect(gaveUp.status === "rejected" && (gaveUp.reason as Error).message).toBe("first gave up");
    expect(waited.status === "fulfilled" && waited.value.id).toBe("acme/vision-pro");
    expect(catalogReads()).toBe(1);
  });

  it("when every caller gives up the catalog read stops, and a later check reads again", async () => {
    const binding = model();
    const controller = new AbortController();
    let connectionClosed: Promise<void> | undefined;
    catalogAnswer = (_request, response) => {
      connectionClosed = closed(response);
      controller.abort(new Error("gave up"));
    };
    await expect(binding.check({ signal: controller.signal })).rejects.toThrow("gave up");
    await connectionClosed;
    catalogAnswer = undefined;
    await expect(binding.check()).resolves.toMatchObject({ id: "acme/vision-pro" });
    expect(catalogReads()).toBe(2);
  });

  it("an aborted stream call stops its catalog read and sends no inference request", async () => {
    const controller = new AbortController();
    let connectionClosed: Promise<void> | undefined;
    catalogAnswer = (_request, response) => {
      connectionClosed = closed(response);
      controller.abort();
    };
    const events = await collect(model().stream(modelRequest(), { signal: controller.signal }));
    expect(errorOf(events).name).toBe("AbortError");
    await connectionClosed;
    expect(chatRequests(fixture.requests)).toHaveLength(0);
  });

  it("a failed catalog read ends the stream with its error, and the next call reads again", async () => {
    catalogAnswer = (_request, response) => sendJson(response, 503, { error: { code: 503, message: "Busy" } });
    const binding = model();
    const events = await collect(binding.stream(modelRequest(), { signal: never }));
    expect(errorOf(events)).toMatchObject({ code: "model_overloaded", retryable: true });
    catalogAnswer = undefined;
    expect(textOf(await collect(binding.stream(modelRequest(), { signal: never })))).toBe("Hi there");
    expect(catalogReads()).toBe(2);
  });

  it("skips OpenRouter's processing comments and classifies its in-stream errors by their numeric code", async () => {
    inference = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": OPENROUTER PROCESSING\n\n");
      response.write(`data: ${JSON.stringify(chunk({ content: "Part" }))}\n\n`);
      response.write(": OPENROUTER PROCESSING\n\n");
      response.end(
        `data: ${JSON.stringify({ ...chunk({ content: "" }, "error"), error: { code: 502, message: `Provider failed (${fakeKey})` } })}\n\n`,
      );
    };
    const events = await collect(model().stream(modelRequest(), { signal: never }));
    expect(events[0]).toEqual({ type: "text-delta", text: "Part" });
    const error = errorOf(events);
    expect(error).toMatchObject({ code: "model_server_error", status: 502, provider: "openrouter" });
    expect(errorText(error)).not.toContain(fakeKey);
  });

  it("maps OpenRouter's 402 and 401 answers", async () => {
    inference = (_request, response) =>
      sendJson(response, 402, {
        error: { code: 402, message: "Insufficient credits. Add more using https://openrouter.ai/credits" },
      });
    expect(errorOf(await collect(model().stream(modelRequest(), { signal: never })))).toMatchObject({
      code: "model_bad_request",
      status: 402,
    });
    inference = (_request, response) => sendJson(response, 401, { error: { code: 401, message: "User not found." } });
    expect(errorOf(await collect(model().stream(modelRequest(), { signal: never })))).toMatchObject({
      code: "model_auth",
      status: 401,
    });
  });

  it("aborting mid-stream ends with an error event and closes the connection", async () => {
    let connectionClosed: Promise<void> | undefined;
    inference = (_request, response) => {
      connectionClosed = closed(response);
      return sendSse(response, [{ data: chunk({ content: "Hel" }) }], { hold: true });
    };
    const controller = new AbortController();
    const events = await collect(model().stream(modelRequest(), { signal: controller.signal }), (event) => {
      if (event.type === "text-delta") controller.abort();
    });
    expect(textOf(events)).toBe("Hel");
    expect(errorOf(events).name).toBe("AbortError");
    await connectionClosed;
  });

  it("runs an agent in a Session after checking the model", async () => {
    const binding = model({ appName: "Castellan Tests" });
    await binding.check();
    const agent = defineAgent("test.openrouter", { model: binding, instructions: "Be brief." });
    const session = await openSession({ agent });
    try {
      const run = session.run("Hello");
      const events = [];
      for await (const event of run) events.push(event);
      expect((await run.result).text).toBe("Hi there");
      expect(session.usage().total).toMatchObject({ inputTokens: 1_000, outputTokens: 100 });
      expect(JSON.stringify(events)).not.toContain(fakeKey);
    } finally {
      await session.close();
    }
    expect(catalogReads()).toBe(1);
  });
});
