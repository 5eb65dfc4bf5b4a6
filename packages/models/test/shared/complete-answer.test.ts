// After a complete answer every adapter lets its request finish on its own: the body is read to
// its end, nothing is aborted or cancelled, and the next call reuses the connection. (An
// abort after the last event would cost an AbortError and a cancel on every turn.)
import type { Socket } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import type { ModelBinding, ModelStreamEvent } from "@castellan/harness";
import { afterEach, describe, expect, it, vi } from "vitest";
import { aiSdk } from "../../src/ai-sdk/index.js";
import { anthropic } from "../../src/anthropic/index.js";
import { codex } from "../../src/codex/index.js";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { end, textChunks } from "../ai-sdk/support/openai-sse.js";
import { answer, sendAnswer } from "../anthropic/support/wire.js";
import { ResponsesStream } from "../codex/support/responses-sse.js";
import { textAnswer } from "../openai-compatible/chat-fixture.js";
import { type HttpFixture, type SseEvent, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { userRequest } from "../support/request.js";

const key = "sk-test-FAKE-complete-answer";

/** Each adapter bound to the fixture at `url`, with the answer events it streams. */
const cases: readonly {
  readonly name: string;
  readonly bind: (url: string) => ModelBinding;
  readonly send: (response: import("node:http").ServerResponse) => Promise<void>;
}[] = [
  {
    name: "anthropic",
    bind: (url) => anthropic({ apiKey: key, model: "claude-test", baseURL: url }),
    send: (response) => sendAnswer(response, answer([{ text: ["Hello"] }])),
  },
  {
    name: "openaiCompatible",
    bind: (url) => openaiCompatible({ apiKey: key, model: "m", baseURL: `${url}/v1` }),
    send: (response) => sendSse(response, textAnswer(["Hello"])),
  },
  {
    name: "codex",
    bind: (url) => codex({ apiKey: key, model: "gpt-test", baseURL: `${url}/v1` }),
    send: (response) => sendSse(response, new ResponsesStream().text(["Hello"]).completed()),
  },
  {
    name: "aiSdk",
    bind: (url) => aiSdk(createOpenAI({ apiKey: key, baseURL: url }).chat("gpt-test")),
    send: (response) => sendSse(response, [...textChunks("Hello"), ...end("stop")] as SseEvent[]),
  },
];

let fixture: HttpFixture | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await fixture?.close();
  fixture = undefined;
});

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("a complete answer", () => {
  it.each(cases.map((entry) => [entry.name, entry] as const))(
    "%s: finishes its request without an abort or cancel, and the next call reuses the connection",
    async (_name, entry) => {
      const sockets: Socket[] = [];
      fixture = await startHttpFixture(async (_request, response) => {
        sockets.push(response.socket as Socket);
        await entry.send(response);
      });
      // What every request was sent with (the SDKs call the global fetch).
      const signals: AbortSignal[] = [];
      const fetch = globalThis.fetch;
      vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
        if (init?.signal) signals.push(init.signal);
        return fetch(input, init);
      });
      // Body cancels by the adapters' own code (an SDK may cancel a reader of its own).
      const ownCancels: string[] = [];
      const cancel = ReadableStreamDefaultReader.prototype.cancel;
      vi.spyOn(ReadableStreamDefaultReader.prototype, "cancel").mockImplementation(function (
        this: ReadableStreamDefaultReader,
        reason?: unknown,
      ) {
        const stack = new Error("cancelled").stack ?? "";
        if (stack.includes("/packages/models/src/")) ownCancels.push(stack);
        return cancel.call(this, reason);
      });
      const model = entry.bind(fixture.url);
      const signal = new AbortController().signal;
      for (let call = 0; call < 3; call++) {
        const events = await collect(model.stream(userRequest("Hi"), { signal }));
        expect(events.filter((event) => event.type === "error")).toEqual([]);
        expect(events.at(-1)).toMatchObject({ type: "finish", stopReason: "end" });
        // The fixture ends each body in its own chunk, a moment after the last event: once it
        // has, the connection is free for the next call.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(signals).toHaveLength(3);
      expect(signals.filter((requestSignal) => requestSignal.aborted)).toEqual([]);
      expect(ownCancels).toEqual([]);
      expect(sockets).toHaveLength(3);
      expect(new Set(sockets).size).toBe(1);
      expect(sockets[0]?.destroyed).toBe(false);
    },
  );
});
