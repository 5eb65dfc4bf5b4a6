// Chat Completions wire helpers for the openai-compatible and openrouter tests: chunks in the
// documented `chat.completion.chunk` shape, whole answers as SSE event lists ending with
// `data: [DONE]`, and small readers for what the adapter emitted.
import type { ModelRequest, ModelStreamEvent } from "@castellan/harness";
import type { RecordedRequest, SseEvent } from "../support/http-fixture.js";
import { userRequest } from "../support/request.js";

export { errorText } from "../support/secrets.js";
export { never } from "../support/signal.js";
export { collect, textOf } from "../support/stream.js";

/** A request with defaults for what the test does not set. */
export function modelRequest(partial: Partial<ModelRequest> = {}): ModelRequest {
  return userRequest("Hello", partial);
}

/** A fake key: tests assert it never leaves the binding except in the Authorization header. */
export const fakeKey = "sk-test-FAKE-0123456789abcdef";

let chunkCount = 0;

/** One `chat.completion.chunk` with one choice. */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: `chatcmpl-${++chunkCount}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "fixture-model",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...extra,
  };
}

/** The usage chunk `stream_options.include_usage` adds before `[DONE]` (empty choices). */
export function usageChunk(promptTokens: number, completionTokens: number, cachedTokens = 0): Record<string, unknown> {
  return {
    id: `chatcmpl-${++chunkCount}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "fixture-model",
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cachedTokens },
    },
  };
}

export const done: SseEvent = { data: "[DONE]" };

/** A text answer streamed in the given pieces, with usage and `[DONE]`. */
export function textAnswer(pieces: readonly string[], usage: readonly [number, number] = [10, 5]): SseEvent[] {
  return [
    { data: chunk({ role: "assistant", content: "" }) },
    ...pieces.map((piece) => ({ data: chunk({ content: piece }) })),
    { data: chunk({}, "stop") },
    { data: usageChunk(usage[0], usage[1]) },
    done,
  ];
}

/** A tool call answer: each call's arguments streamed in the given pieces, calls one after another. */
export function toolCallAnswer(
  calls: readonly { readonly id: string; readonly name: string; readonly pieces: readonly string[] }[],
): SseEvent[] {
  const events: SseEvent[] = [{ data: chunk({ role: "assistant", content: null }) }];
  calls.forEach((call, index) => {
    events.push({
      data: chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    });
    for (const piece of call.pieces) {
      events.push({ data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }) });
    }
  });
  events.push({ data: chunk({}, "tool_calls") }, { data: usageChunk(20, 8) }, done);
  return events;
}

/** An OpenAI-style error body. */
export function errorBody(message: string, type: string, code: string | number | null = null) {
  return { error: { message, type, param: null, code } };
}

/** The error that ended the stream (asserting there is exactly one, last). */
export function errorOf(events: readonly ModelStreamEvent[]): Error & Record<string, unknown> {
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected the stream to end with an error: ${JSON.stringify(events)}`);
  if (events.filter((event) => event.type === "error").length !== 1) throw new Error("more than one error event");
  return last.error as Error & Record<string, unknown>;
}

/** The chat requests the fixture received (POST …/chat/completions), as parsed JSON. */
export function chatRequests(requests: readonly RecordedRequest[]): Record<string, any>[] {
  return requests
    .filter((request) => request.method === "POST" && request.path.endsWith("/chat/completions"))
    .map((request) => request.json as Record<string, any>);
}
