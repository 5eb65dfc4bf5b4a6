import type { LanguageModelV4 } from "@ai-sdk/provider";
import {
  isModelProviderError,
  type ModelErrorCode,
  ModelProviderError,
  type ModelRequest,
  type ModelStreamEvent,
} from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { describe, expect, it } from "vitest";
import { neverAborts as signal } from "../support/signal.js";
import { apiCallError, collect, fakeLanguageModel, finish, textParts } from "./support/fake-language-model.js";

const KEY = "sk-test-SECRET-0123456789";
const ask: ModelRequest = {
  system: "",
  context: "",
  messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  tools: [],
  hostedTools: [],
};
const ok = { parts: [...textParts("t", "fine"), finish()] };

function lastError(events: readonly ModelStreamEvent[]): ModelProviderError {
  const last = events.at(-1);
  if (last?.type !== "error" || !(last.error instanceof ModelProviderError)) {
    throw new Error(`expected a ModelProviderError event, got ${JSON.stringify(last)}`);
  }
  return last.error;
}

function expectNoKey(error: Error): void {
  for (const text of [error.message, error.stack ?? "", JSON.stringify(error), String(error)])
    expect(text).not.toContain(KEY);
}

describe("aiSdk errors", () => {
  it("classifies a refused request by its status code and keeps the credential out of the error", async () => {
    const cases: [Parameters<typeof apiCallError>[0], ModelErrorCode][] = [
      [
        {
          statusCode: 401,
          message: `Incorrect API key provided: ${KEY}`,
          data: { error: { type: "invalid_request_error", code: "invalid_api_key" } },
        },
        "model_auth",
      ],
      [{ statusCode: 403 }, "model_auth"],
      [
        { statusCode: 400, data: { error: { code: "context_length_exceeded", message: "too long" } } },
        "model_context_overflow",
      ],
      [{ statusCode: 413 }, "model_context_overflow"],
      [{ statusCode: 404, data: { error: { code: "model_not_found" } } }, "model_unknown"],
      // Anthropic's answer for an unknown model, as @ai-sdk/anthropic passes it on.
      [{ statusCode: 404, data: { type: "error", error: { type: "not_found_error" } } }, "model_unknown"],
      [{ statusCode: 400, data: { error: { type: "invalid_request_error" } } }, "model_bad_request"],
      [{ statusCode: 422 }, "model_bad_request"],
      [{ statusCode: 429 }, "model_rate_limited"],
      [{ statusCode: 500 }, "model_server_error"],
      [{ statusCode: 503 }, "model_overloaded"],
      [{ statusCode: 529, data: { type: "error", error: { type: "overloaded_error" } } }, "model_overloaded"],
      [{ isRetryable: true, message: "Cannot connect to API: ECONNREFUSED" }, "model_network"],
    ];
    for (const [fields, code] of cases) {
      const model = fakeLanguageModel([
        {
          reject: apiCallError({
            ...fields,
            responseHeaders: { "x-request-id": "req_1", authorization: `Bearer ${KEY}` },
          }),
        },
      ]);
      const events = await collect(aiSdk(model, { maxRetries: 0 }).stream(ask, { signal: signal() }));
      expect(events).toHaveLength(1);
      const error = lastError(events);
      expect(error.code, JSON.stringify(fields)).toBe(code);
      expect(error.provider).toBe("ai-sdk");
      expect(error.status).toBe(fields.statusCode);
      expect(error.requestId).toBe("req_1");
      expect(error.message).toContain("fake.chat/fake-1");
      expectNoKey(error);
    }
  });

  it("classifies the AI SDK's own errors by name, and anything else as a non-retryable failure", async () => {
    const cases: [Error, ModelErrorCode, boolean][] = [
      [Object.assign(new Error("no images"), { name: "AI_UnsupportedFunctionalityError" }), "model_unsupported", false],
      [Object.assign(new Error("OpenAI API key is missing."), { name: "AI_LoadAPIKeyError" }), "model_auth", false],
      [Object.assign(new Error("bad prompt"), { name: "AI_InvalidPromptError" }), "model_bad_request", false],
      [new TypeError("something broke"), "model_server_error", false],
    ];
    for (const [thrown, code, retryable] of cases) {
      const model = fakeLanguageModel([{ reject: thrown }]);
      const error = lastError(await collect(aiSdk(model).stream(ask, { signal: signal() })));
      expect(error.code).toBe(code);
      expect(error.retryable).toBe(retryable);
      expect(model.calls).toHaveLength(1);
    }
  });

  it("turns a doStream that throws synchronously into an error event", async () => {
    const model = fakeLanguageModel([]);
    const throwing: LanguageModelV4 = {
      ...model,
      doStream() {
        throw apiCallError({ statusCode: 400 });
      },
    };
    const events = await collect(aiSdk(throwing).stream(ask, { signal: signal() }));
    expect(lastError(events).code).toBe("model_bad_request");
  });

  it("classifies a failed read as model_network", async () => {
    const model = fakeLanguageModel([
      { parts: textParts("t", "half").slice(0, 2), failRead: new TypeError("terminated") },
    ]);
    const events = await collect(aiSdk(model).stream(ask, { signal: signal() }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "error"]);
    expect(lastError(events).code).toBe("model_network");
    expect(model.calls).toHaveLength(1);
  });
});

describe("aiSdk retries", () => {
  it("retries a retryable failure before anything was streamed, honouring retry-after, at most maxRetries times", async () => {
    const limited = () => apiCallError({ statusCode: 429, responseHeaders: { "retry-after-ms": "0" } });
    const model = fakeLanguageModel([{ reject: limited() }, { reject: limited() }, { reject: limited() }, ok]);
    const error = lastError(await collect(aiSdk(model).stream(ask, { signal: signal() })));
    expect(error.code).toBe("model_rate_limited");
    expect(error.retryAfterMs).toBe(0);
    expect(model.calls).toHaveLength(3);

    const recovering = fakeLanguageModel([
      { reject: apiCallError({ statusCode: 503, responseHeaders: { "retry-after": "0" } }) },
      // An error part before any output is retried as well.
      {
        parts: [
          { type: "stream-start", warnings: [] },
          { type: "error", error: { statusCode: 500, isRetryable: true, responseHeaders: { "retry-after-ms": "0" } } },
        ],
      },
      ok,
    ]);
    const events = await collect(aiSdk(recovering).stream(ask, { signal: signal() }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "usage", "finish"]);
    expect(recovering.calls).toHaveLength(3);
  });

  it("never retries after the first event, a non-retryable failure, or with maxRetries 0", async () => {
    const midStream = fakeLanguageModel([
      {
        parts: [
          ...textParts("t", "partial").slice(0, 2),
          { type: "error", error: { statusCode: 500, isRetryable: true } },
        ],
      },
      ok,
    ]);
    const events = await collect(aiSdk(midStream).stream(ask, { signal: signal() }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "error"]);
    expect(midStream.calls).toHaveLength(1);

    const insufficientQuota = fakeLanguageModel([
      { reject: apiCallError({ statusCode: 429, isRetryable: false }) },
      ok,
    ]);
    expect(lastError(await collect(aiSdk(insufficientQuota).stream(ask, { signal: signal() }))).retryable).toBe(false);
    expect(insufficientQuota.calls).toHaveLength(1);

    const noRetries = fakeLanguageModel([
      { reject: apiCallError({ statusCode: 500, responseHeaders: { "retry-after-ms": "0" } }) },
      ok,
    ]);
    await collect(aiSdk(noRetries, { maxRetries: 0 }).stream(ask, { signal: signal() }));
    expect(noRetries.calls).toHaveLength(1);
  });

  it("reports a retry-after longer than a minute instead of waiting for it", async () => {
    const model = fakeLanguageModel([
      { reject: apiCallError({ statusCode: 429, responseHeaders: { "retry-after": "120" } }) },
      ok,
    ]);
    const error = lastError(await collect(aiSdk(model).stream(ask, { signal: signal() })));
    expect(error.retryAfterMs).toBe(120_000);
    expect(model.calls).toHaveLength(1);
  });
});

describe("aiSdk cancellation", () => {
  it("passes an abort signal to doStream and ends a hanging stream with an error event when aborted", async () => {
    const model = fakeLanguageModel([{ parts: textParts("t", "streaming").slice(0, 2), hang: true }]);
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    for await (const event of aiSdk(model).stream(ask, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(events.map((event) => event.type)).toEqual(["text-delta", "error"]);
    expect((events[1] as { error: Error }).error.name).toBe("AbortError");
    expect(model.calls[0]?.abortSignal?.aborted).toBe(true);
  });

  it("ends promptly even when the model ignores its abort signal", async () => {
    const model = fakeLanguageModel([
      { parts: textParts("t", "streaming").slice(0, 2), hang: true, ignoreAbort: true },
    ]);
    const controller = new AbortController();
    const reason = new Error("stop now");
    const events: ModelStreamEvent[] = [];
    for await (const event of aiSdk(model).stream(ask, { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort(reason);
    }
    expect(events.at(-1)).toEqual({ type: "error", error: reason });
    expect(model.cancelled).toBe(1);
  });

  it("does not call the model when the signal is already aborted, and stops waiting to retry when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const idle = fakeLanguageModel([ok]);
    const events = await collect(aiSdk(idle).stream(ask, { signal: controller.signal }));
    expect(events.map((event) => event.type)).toEqual(["error"]);
    expect(idle.calls).toHaveLength(0);

    const during = new AbortController();
    const base = fakeLanguageModel([]);
    let calls = 0;
    const failing: LanguageModelV4 = {
      ...base,
      async doStream() {
        calls++;
        // Retryable with the default backoff; the abort comes while the adapter waits to retry.
        queueMicrotask(() => during.abort());
        throw apiCallError({ statusCode: 500 });
      },
    };
    const aborted = await collect(aiSdk(failing).stream(ask, { signal: during.signal }));
    expect(aborted.map((event) => event.type)).toEqual(["error"]);
    expect((aborted[0] as { error: Error }).error.name).toBe("AbortError");
    expect(calls).toBe(1);
  });
});

describe("aiSdk binding", () => {
  it("names itself after the model, exposes only its specifier, window and stream, and connects to nothing", () => {
    const model = fakeLanguageModel([], { provider: "openai.chat", modelId: "gpt-x" });
    const binding = aiSdk(model);
    expect(binding.specifier).toBe("openai.chat/gpt-x");
    // The AI SDK reports no window, so none is assumed.
    expect(binding.contextWindow).toBeUndefined();
    expect(Object.keys(binding).sort()).toEqual(["specifier", "stream"]);
    expect(Object.isFrozen(binding)).toBe(true);
    expect(model.calls).toHaveLength(0);
    const named = aiSdk(model, { specifier: "app/chat", contextWindow: 200_000 });
    expect([named.specifier, named.contextWindow]).toEqual(["app/chat", 200_000]);
  });

  it("rejects other specification versions and malformed options when created", () => {
    const model = fakeLanguageModel([]);
    expect(() => aiSdk({ ...model, specificationVersion: "v2" } as unknown as LanguageModelV4)).toThrow(/"v2"/);
    expect(() => aiSdk({} as LanguageModelV4)).toThrow(/doStream/);
    expect(() => aiSdk(model, { contextWindow: 0 })).toThrow(/contextWindow/);
    expect(() => aiSdk(model, { maxRetries: 11 })).toThrow(/maxRetries/);
    expect(() => aiSdk(model, { maxOutputTokens: 1.5 })).toThrow(/maxOutputTokens/);
    expect(() => aiSdk(model, { pricing: { inputPerMillion: -1, outputPerMillion: 1 } })).toThrow(/pricing/);
  });

  it("ends with model_stream_malformed when doStream answers without a stream or with a part off the spec", async () => {
    const base = fakeLanguageModel([]);
    const noStream: LanguageModelV4 = { ...base, doStream: async () => ({}) as never };
    expect(lastError(await collect(aiSdk(noStream).stream(ask, { signal: signal() }))).code).toBe(
      "model_stream_malformed",
    );
    const offSpec = fakeLanguageModel([{ parts: [null as never, ...ok.parts] }]);
    const events = await collect(aiSdk(offSpec).stream(ask, { signal: signal() }));
    expect(events).toHaveLength(1);
    expect(lastError(events).code).toBe("model_stream_malformed");
  });

  it("classifies every failure as a ModelProviderError of provider ai-sdk", async () => {
    const model = fakeLanguageModel([{ reject: "a bare string" }]);
    const error = lastError(await collect(aiSdk(model).stream(ask, { signal: signal() })));
    expect(isModelProviderError(error)).toBe(true);
    expect(error.message).toContain("a bare string");
  });
});
