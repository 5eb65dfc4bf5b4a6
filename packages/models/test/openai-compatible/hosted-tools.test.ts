// Chat Completions has no provider-hosted tools: openaiCompatible and openrouter (which streams
// over the same path) refuse a web search with model_unsupported before anything is sent.
import type { HostedToolSpec } from "@castellan/harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { openrouter } from "../../src/openrouter/index.js";
import { type HttpFixture, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { collect, errorOf, fakeKey, modelRequest, never, textAnswer } from "./chat-fixture.js";

let fixture: HttpFixture;
beforeEach(async () => {
  fixture = await startHttpFixture((_request, response) => sendSse(response, textAnswer(["ok"])));
});
afterEach(() => fixture.close());

const hostedTools: HostedToolSpec[][] = [
  [{ name: "web_search", hosted: { kind: "web-search" } }],
  [{ name: "web_search", hosted: { kind: "web-search", allowedDomains: ["cedar.example"], maxUses: 2 } }],
  [{ name: "code", hosted: { kind: "code-interpreter" } }],
];

describe("hosted tools over Chat Completions", () => {
  it.each(hostedTools)("openaiCompatible refuses %j with model_unsupported before any request", async (tool) => {
    const model = openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model" });
    const events = await collect(model.stream(modelRequest({ hostedTools: [tool] }), { signal: never }));
    expect(events).toHaveLength(1);
    const error = errorOf(events);
    expect(error.code).toBe("model_unsupported");
    expect(error.provider).toBe("openai-compatible");
    expect(error.message).toContain(tool.name);
    expect(fixture.requests).toHaveLength(0);
  });

  it.each(hostedTools)("openrouter refuses %j before reading the catalog or sending anything", async (tool) => {
    const model = openrouter({ apiKey: fakeKey, model: "acme/vision-pro", baseURL: `${fixture.url}/api/v1` });
    const events = await collect(model.stream(modelRequest({ hostedTools: [tool] }), { signal: never }));
    expect(events).toHaveLength(1);
    const error = errorOf(events);
    expect(error.code).toBe("model_unsupported");
    expect(error.provider).toBe("openrouter");
    expect(error.message).toContain(tool.name);
    expect(fixture.requests).toHaveLength(0);
  });

  it("still serves the same request without the hosted tool", async () => {
    const model = openaiCompatible({ baseURL: `${fixture.url}/v1`, apiKey: fakeKey, model: "fixture-model" });
    const events = await collect(model.stream(modelRequest(), { signal: never }));
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    expect(fixture.requests).toHaveLength(1);
  });
});
