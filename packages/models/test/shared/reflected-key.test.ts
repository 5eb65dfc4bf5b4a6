// Every adapter against a server that reflects its credential in an error answer (a 500, so the
// body is quoted in the message), with keys the old adapters' rule left alone: a key of two or
// five characters standing inside a word. The ModelProviderError, its cause chain, its fields
// and util.inspect of it hold no key (the one redactor of @castellan/harness, any length).
import type { ModelBinding, ModelProviderError } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { codex } from "../../src/codex/index.js";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { errorOf, modelRequest } from "../openai-compatible/chat-fixture.js";
import { type HttpFixture, sendJson, startHttpFixture } from "../support/http-fixture.js";
import { assertNoSecret } from "../support/secrets.js";
import { never } from "../support/signal.js";
import { collect } from "../support/stream.js";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Answers every request with a 500 quoting the credential headers, bare and glued into words. */
async function reflecting(key: string): Promise<string> {
  fixture = await startHttpFixture((request, response) => {
    const authorization = String(request.headers.authorization ?? "");
    const apiKey = String(request.headers["x-api-key"] ?? "");
    const message = `denied: authorization="${authorization}" x-api-key=${apiKey} glued=pre${key}post`;
    sendJson(response, 500, { type: "error", error: { type: "api_error", message, code: "server_error" } });
  });
  return fixture.url;
}

const adapters: Record<string, (key: string, url: string) => ModelBinding> = {
  "openai-compatible": (key, url) => openaiCompatible({ baseURL: `${url}/v1`, apiKey: key, model: "m", maxRetries: 0 }),
  anthropic: (key, url) => anthropic({ apiKey: key, model: "claude-test", baseURL: url, maxRetries: 0 }),
  codex: (key, url) => codex({ apiKey: key, model: "gpt-5-codex", baseURL: url, maxRetries: 0 }),
};

describe.each(Object.keys(adapters))("%s: a server reflecting a short key in a 500", (name) => {
  it.each(["Qz", "kQ7zj"])("keeps the key %s out of the error, its causes and util.inspect", async (key) => {
    const url = await reflecting(key);
    const events = await collect(
      (adapters[name] as (typeof adapters)[string])(key, url).stream(modelRequest(), { signal: never }),
    );
    const error = errorOf(events) as unknown as ModelProviderError;
    expect(error.code).toBe("model_server_error");
    // The message still says what the server said, with the key replaced.
    expect(error.message).toContain("[redacted]");
    expect(error.message).toContain("pre[redacted]post");
    assertNoSecret(key, error, events);
  });
});
