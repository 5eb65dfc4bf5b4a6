// Anthropic's wire format for the fixture server: the Messages API's SSE events exactly as
// the API names and frames them, JSON error bodies, and small helpers to drive an adapter.
import type { ServerResponse } from "node:http";
import type { ModelBinding, ModelRequest, ModelStreamEvent } from "@castellan/harness";
import { type RecordedRequest, type SseEvent, sendJson, sendSse } from "../../support/http-fixture.ts";
import { userRequest } from "../../support/request.ts";
import { assertNoSecret } from "../../support/secrets.ts";
import { neverAborts } from "../../support/signal.ts";
import { collect as collectStream } from "../../support/stream.ts";

/** A fake key: tests assert it never leaves the adapter except in the authorization header. */
export const FAKE_KEY = "sk-ant-test-FAKE-0123456789abcdef";
export const MODEL = "claude-test-1";
export const REQUEST_ID = "req_fixture_0001";

/** One content block of a scripted answer. */
export type ScriptedBlock =
  | { readonly text: readonly string[] }
  | { readonly tool: { readonly id: string; readonly name: string; readonly json: readonly string[] } }
  | { readonly thinking: readonly string[]; readonly signature: string }
  | { readonly redacted: string }
  /**
   * A block whose input streams as `input_json_delta` pieces after `start` (which has
   * `input: {}`), as a `server_tool_use` block does.
   */
  | { readonly streamed: Readonly<Record<string, unknown>>; readonly json: readonly string[] }
  /** A block sent whole in its `content_block_start`, as a `web_search_tool_result` is. */
  | { readonly whole: Readonly<Record<string, unknown>> }
  /**
   * A text block that cites search results: it starts as `{ citations: [], type: "text", text: "" }`,
   * then each citation comes as a `citations_delta`, then the text as `text_delta`s.
   */
  | { readonly cited: readonly string[]; readonly citations: readonly Readonly<Record<string, unknown>>[] };

/** Token counts as Anthropic reports them. */
export interface WireUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_input_tokens?: number;
  readonly cache_creation_input_tokens?: number;
  /** Reported in `message_delta` when given. */
  readonly server_tool_use?: { readonly web_search_requests: number; readonly web_fetch_requests?: number };
}

const event = (name: string, data: unknown): SseEvent => ({ event: name, data: { type: name, ...(data as object) } });

/** The events of one complete streamed message, with a ping after message_start as the API sends. */
export function answer(
  blocks: readonly ScriptedBlock[],
  options: { readonly stopReason?: string; readonly usage?: WireUsage } = {},
): SseEvent[] {
  const usage = options.usage ?? { input_tokens: 12, output_tokens: 7 };
  const events: SseEvent[] = [
    event("message_start", {
      message: {
        id: "msg_fixture",
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: 1,
          cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
          cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        },
      },
    }),
    event("ping", {}),
  ];
  for (const [index, block] of blocks.entries()) events.push(...blockEvents(block, index));
  events.push(
    event("message_delta", {
      delta: { stop_reason: options.stopReason ?? "end_turn", stop_sequence: null },
      usage: {
        output_tokens: usage.output_tokens,
        ...(usage.server_tool_use ? { server_tool_use: usage.server_tool_use } : {}),
      },
    }),
    event("message_stop", {}),
  );
  return events;
}

function blockEvents(block: ScriptedBlock, index: number): SseEvent[] {
  const delta = (payload: object) => event("content_block_delta", { index, delta: payload });
  const start = (content_block: object) => event("content_block_start", { index, content_block });
  const stop = event("content_block_stop", { index });
  if ("text" in block) {
    return [start({ type: "text", text: "" }), ...block.text.map((text) => delta({ type: "text_delta", text })), stop];
  }
  if ("tool" in block) {
    const { id, name, json } = block.tool;
    return [
      start({ type: "tool_use", id, name, input: {} }),
      ...json.map((partial_json) => delta({ type: "input_json_delta", partial_json })),
      stop,
    ];
  }
  if ("streamed" in block) {
    return [
      start(block.streamed),
      ...block.json.map((partial_json) => delta({ type: "input_json_delta", partial_json })),
      stop,
    ];
  }
  if ("whole" in block) return [start(block.whole), stop];
  if ("cited" in block) {
    return [
      start({ citations: [], type: "text", text: "" }),
      ...block.citations.map((citation) => delta({ type: "citations_delta", citation })),
      ...block.cited.map((text) => delta({ type: "text_delta", text })),
      stop,
    ];
  }
  if ("thinking" in block) {
    return [
      start({ type: "thinking", thinking: "", signature: "" }),
      ...block.thinking.map((thinking) => delta({ type: "thinking_delta", thinking })),
      delta({ type: "signature_delta", signature: block.signature }),
      stop,
    ];
  }
  return [start({ type: "redacted_thinking", data: block.redacted }), stop];
}

/** A streamed answer with Anthropic's response headers. */
export function sendAnswer(
  response: ServerResponse,
  events: readonly SseEvent[],
  options: { readonly disconnectAfter?: number; readonly hold?: boolean } = {},
): Promise<void> {
  return sendSse(response, events, { ...options, headers: { "request-id": REQUEST_ID } });
}

/** An Anthropic error answer: `{ "type": "error", "error": { "type", "message" } }` with a request id. */
export function sendError(
  response: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(
    response,
    status,
    { type: "error", error: { type, message }, request_id: REQUEST_ID },
    { "request-id": REQUEST_ID, ...headers },
  );
}

/** The `error` event Anthropic sends inside a stream. */
export function errorEvent(type: string, message: string): SseEvent {
  return { event: "error", data: { type: "error", error: { type, message } } };
}

/** A request with defaults for what a test does not care about. */
export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return userRequest("Hi", overrides);
}

/** Every event of one call. */
export function collect(
  model: ModelBinding,
  input: ModelRequest = request(),
  signal: AbortSignal = neverAborts(),
): Promise<ModelStreamEvent[]> {
  return collectStream(model.stream(input, { signal }));
}

/** The last event, which must be an error; returns it. */
export function finalError(events: readonly ModelStreamEvent[]): Error {
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected the stream to end with an error, got ${JSON.stringify(last)}`);
  return last.error;
}

/** The JSON body of the recorded Messages requests. */
export function messageBodies(requests: readonly RecordedRequest[]): Record<string, unknown>[] {
  return requests
    .filter((recorded) => recorded.path === "/v1/messages")
    .map((recorded) => recorded.json as Record<string, unknown>);
}

/** Asserts nothing observable carries the fake key. */
export function assertNoKey(...values: unknown[]): void {
  assertNoSecret(FAKE_KEY, ...values);
}
