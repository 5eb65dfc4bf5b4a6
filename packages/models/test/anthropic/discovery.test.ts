import { isModelProviderError } from "@castellan/harness";
import { listModels, verifyKey } from "@castellan/models/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpFixture, sendJson, startHttpFixture } from "../support/http-fixture.ts";
import { assertNoKey, FAKE_KEY, REQUEST_ID, sendError } from "./support/wire.ts";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const model = (id: string, extra: Record<string, unknown> = {}) => ({
  type: "model",
  id,
  display_name: `Claude ${id}`,
  created_at: "2026-01-01T00:00:00Z",
  ...extra,
});

/** A catalog of five models served two per page, with Anthropic's after_id/has_more paging. */
async function catalog() {
  const models = [
    model("claude-e", { max_input_tokens: 1_000_000, max_tokens: 128_000 }),
    model("claude-d"),
    model("claude-c"),
    model("claude-b"),
    model("claude-a"),
  ];
  fixture = await startHttpFixture((request, response) => {
    const url = new URL(request.path, "http://fixture");
    if (request.headers.authorization !== `Bearer ${FAKE_KEY}`) {
      sendError(response, 401, "authentication_error", "invalid x-api-key");
      return;
    }
    const after = url.searchParams.get("after_id");
    const start = after ? models.findIndex((entry) => entry.id === after) + 1 : 0;
    const data = models.slice(start, start + 2);
    sendJson(
      response,
      200,
      { data, has_more: start + 2 < models.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null },
      { "request-id": REQUEST_ID },
    );
  });
  return fixture;
}

describe("listModels", () => {
  it("follows the catalog's pages and returns id, display name and creation time", async () => {
    const server = await catalog();
    const models = await listModels({ apiKey: FAKE_KEY, baseURL: server.url });
    expect(models.map((entry) => entry.id)).toEqual(["claude-e", "claude-d", "claude-c", "claude-b", "claude-a"]);
    expect(models[0]).toEqual({
      id: "claude-e",
      displayName: "Claude claude-e",
      createdAt: "2026-01-01T00:00:00Z",
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
    });
    expect(models[1]).toEqual({ id: "claude-d", displayName: "Claude claude-d", createdAt: "2026-01-01T00:00:00Z" });
    expect(server.requests.map((request) => request.path)).toEqual([
      "/v1/models?limit=100",
      "/v1/models?limit=100&after_id=claude-d",
      "/v1/models?limit=100&after_id=claude-b",
    ]);
    assertNoKey(models);
  });

  it("rejects a refused key with model_auth", async () => {
    const server = await catalog();
    const listing = listModels({ apiKey: "sk-ant-wrong", baseURL: server.url });
    await expect(listing).rejects.toMatchObject({ code: "model_auth", status: 401, requestId: REQUEST_ID });
  });
});

describe("verifyKey", () => {
  it("resolves for an accepted key, reading one catalog entry", async () => {
    const server = await catalog();
    await expect(verifyKey({ apiKey: FAKE_KEY, baseURL: server.url })).resolves.toBeUndefined();
    expect(server.requests.map((request) => request.path)).toEqual(["/v1/models?limit=1"]);
  });

  it("fails with a typed model_auth error for a bad key, without the key in it", async () => {
    const server = await catalog();
    const badKey = "sk-ant-bad-key-should-not-appear";
    const error = await verifyKey({ apiKey: badKey, baseURL: server.url }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isModelProviderError(error, "model_auth")).toBe(true);
    expect(error).toMatchObject({ provider: "anthropic", status: 401, retryable: false });
    expect(JSON.stringify(error)).not.toContain(badKey);
    expect(String((error as Error).stack)).not.toContain(badKey);
  });

  it("reports a failed check with its own code, not model_auth", async () => {
    fixture = await startHttpFixture((_request, response) => sendError(response, 500, "api_error", "Internal"));
    await expect(verifyKey({ apiKey: FAKE_KEY, baseURL: fixture.url, maxRetries: 0 })).rejects.toMatchObject({
      code: "model_server_error",
    });
  });

  it("retries a failed catalog request under the shared policy, the SDK's own retries off", async () => {
    let calls = 0;
    fixture = await startHttpFixture((_request, response) => {
      calls++;
      if (calls === 1) return sendError(response, 529, "overloaded_error", "Overloaded", { "retry-after-ms": "0" });
      sendJson(response, 200, { data: [], has_more: false, first_id: null, last_id: null });
    });
    await expect(verifyKey({ apiKey: FAKE_KEY, baseURL: fixture.url, maxRetries: 1 })).resolves.toBeUndefined();
    expect(fixture.requests.map((request) => request.headers["x-stainless-retry-count"])).toEqual(["0", "0"]);
  });

  it("rejects an empty key without a request", async () => {
    await expect(verifyKey({ apiKey: "" })).rejects.toMatchObject({ code: "model_auth" });
  });
});
