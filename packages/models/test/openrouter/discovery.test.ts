// OpenRouter's public model discovery and key check against the loopback server: parsing the
// catalog into capabilities, cancellation, and typed errors without the key in them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listOpenRouterModels, verifyOpenRouterKey } from "../../src/openrouter/index.js";
import { errorText, fakeKey } from "../openai-compatible/chat-fixture.js";
import { closed } from "../support/connection.js";
import { type HttpFixture, sendJson, startHttpFixture } from "../support/http-fixture.js";
import { never } from "../support/signal.js";
import { catalog } from "./catalog-fixture.js";

let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) => sendJson(response, 200, catalog));
});

afterEach(async () => {
  await fixture.close();
});

async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as Error & Record<string, unknown>,
  );
}

describe("listOpenRouterModels", () => {
  it("lists each model's tools support, image input, context length, prices per million and name", async () => {
    const models = await listOpenRouterModels({ baseURL: `${fixture.url}/api/v1`, signal: never });
    expect(models).toEqual([
      {
        id: "acme/vision-pro",
        name: "Acme: Vision Pro",
        contextLength: 200_000,
        tools: true,
        imageInput: true,
        pricing: { inputPerMillion: 3, outputPerMillion: 15, cacheReadPerMillion: 0.3, cacheWritePerMillion: 3.75 },
      },
      {
        id: "acme/text-lite",
        name: "Acme: Text Lite",
        contextLength: 32_768,
        tools: false,
        imageInput: false,
        pricing: { inputPerMillion: 0.1, outputPerMillion: 0.2 },
      },
      {
        id: "openrouter/auto",
        name: "Auto Router",
        contextLength: 2_000_000,
        tools: true,
        imageInput: true,
        pricing: undefined,
      },
    ]);
    const [request] = fixture.requests;
    expect(request?.method).toBe("GET");
    expect(request?.path).toBe("/api/v1/models");
    expect(request?.headers.authorization).toBeUndefined();
  });

  it("is cancellable: aborting rejects with the reason and closes the request", async () => {
    const controller = new AbortController();
    let connectionClosed: Promise<void> | undefined;
    fixture.handle((_request, response) => {
      connectionClosed = closed(response);
      controller.abort(new Error("stop listing"));
    });
    const error = await rejection(
      listOpenRouterModels({ baseURL: `${fixture.url}/api/v1`, signal: controller.signal }),
    );
    expect(error.message).toBe("stop listing");
    await connectionClosed;
  });

  it("classifies failures", async () => {
    fixture.handle((_request, response) => sendJson(response, 502, { error: { code: 502, message: "Upstream down" } }));
    const error = await rejection(listOpenRouterModels({ baseURL: `${fixture.url}/api/v1`, signal: never }));
    expect(error).toMatchObject({ code: "model_server_error", provider: "openrouter", status: 502 });
    fixture.handle((_request, response) => sendJson(response, 200, { models: [] }));
    const shape = await rejection(listOpenRouterModels({ baseURL: `${fixture.url}/api/v1`, signal: never }));
    expect(shape.code).toBe("model_stream_malformed");
  });
});

describe("verifyOpenRouterKey", () => {
  it("confirms the key with GET /key and reports its limits", async () => {
    fixture.handle((_request, response) =>
      sendJson(response, 200, {
        data: { label: "sk-test-FAK...def", limit: 10, usage: 2.5, limit_remaining: 7.5, is_free_tier: false },
      }),
    );
    const info = await verifyOpenRouterKey({ apiKey: fakeKey, baseURL: `${fixture.url}/api/v1`, signal: never });
    expect(info).toEqual({ usage: 2.5, limit: 10, limitRemaining: 7.5, isFreeTier: false });
    const [request] = fixture.requests;
    expect(request?.path).toBe("/api/v1/key");
    expect(request?.headers.authorization).toBe(`Bearer ${fakeKey}`);
  });

  it("rejects a refused key with model_auth, without the key in the error", async () => {
    fixture.handle((_request, response) =>
      sendJson(response, 401, { error: { code: 401, message: `No auth credentials found for ${fakeKey}` } }),
    );
    const error = await rejection(
      verifyOpenRouterKey({ apiKey: fakeKey, baseURL: `${fixture.url}/api/v1`, signal: never }),
    );
    expect(error).toMatchObject({ code: "model_auth", status: 401, retryable: false });
    expect(errorText(error)).not.toContain(fakeKey);
  });

  it("is cancellable", async () => {
    const controller = new AbortController();
    let connectionClosed: Promise<void> | undefined;
    fixture.handle((_request, response) => {
      connectionClosed = closed(response);
      controller.abort();
    });
    const error = await rejection(
      verifyOpenRouterKey({ apiKey: fakeKey, baseURL: `${fixture.url}/api/v1`, signal: controller.signal }),
    );
    expect(error.name).toBe("AbortError");
    await connectionClosed;
  });
});
