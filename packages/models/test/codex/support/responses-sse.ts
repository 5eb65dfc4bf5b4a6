// Builds Responses API streams as the API sends them: `event: <type>` plus `data: {...}` with
// `type` and a growing `sequence_number`, output items announced, streamed and completed.
import type { ModelStreamEvent } from "@castellan/harness";
import type { SseEvent } from "../../support/http-fixture.js";

export { collect, textOf as textOfEvents } from "../../support/stream.js";

type Json = Record<string, unknown>;

/** A fake key of the shape OpenAI uses; tests assert it never leaves the adapter. */
export const FAKE_KEY = "sk-test-codex-0123456789abcdefFAKE";

export interface UsageSpec {
  readonly input: number;
  readonly output: number;
  readonly cached?: number;
}

/** One response's stream, built item by item. */
export class ResponsesStream {
  readonly events: SseEvent[] = [];
  readonly output: Json[] = [];
  private sequence = 0;

  constructor(readonly id = "resp_1") {
    this.emit("response.created", { response: this.response("in_progress", null) });
    this.emit("response.in_progress", { response: this.response("in_progress", null) });
  }

  /** Adds an event; `data` fields follow `type` and `sequence_number`. */
  emit(type: string, fields: Json = {}): this {
    this.events.push({ event: type, data: { type, sequence_number: this.sequence++, ...fields } });
    return this;
  }

  /**
   * An assistant message streamed as text deltas; `phase` labels it as the gpt-5.x codex models
   * do (`commentary` or `final_answer`), on the item when it is added and when it is done.
   */
  text(deltas: readonly string[], id = `msg_${this.output.length}`, phase?: string): this {
    const index = this.output.length;
    const text = deltas.join("");
    const labelled = phase === undefined ? {} : { phase };
    this.emit("response.output_item.added", {
      output_index: index,
      item: { id, type: "message", status: "in_progress", content: [], role: "assistant", ...labelled },
    });
    const part = { output_index: index, item_id: id, content_index: 0 };
    this.emit("response.content_part.added", { ...part, part: { type: "output_text", annotations: [], text: "" } });
    for (const delta of deltas) this.emit("response.output_text.delta", { ...part, delta, logprobs: [] });
    this.emit("response.output_text.done", { ...part, text, logprobs: [] });
    this.emit("response.content_part.done", { ...part, part: { type: "output_text", annotations: [], text } });
    const item = {
      id,
      type: "message",
      status: "completed",
      content: [{ type: "output_text", annotations: [], logprobs: [], text }],
      role: "assistant",
      ...labelled,
    };
    return this.done(item);
  }

  /** A function call whose arguments arrive in pieces. */
  functionCall(callId: string, name: string, argumentPieces: readonly string[], id = `fc_${this.output.length}`): this {
    const index = this.output.length;
    const args = argumentPieces.join("");
    this.emit("response.output_item.added", {
      output_index: index,
      item: { id, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name },
    });
    for (const delta of argumentPieces) {
      this.emit("response.function_call_arguments.delta", { item_id: id, output_index: index, delta });
    }
    this.emit("response.function_call_arguments.done", { item_id: id, output_index: index, arguments: args });
    return this.done({ id, type: "function_call", status: "completed", arguments: args, call_id: callId, name });
  }

  /** A reasoning item with its summary streamed and its encrypted content on completion. */
  reasoning(summary: readonly string[], encrypted: string, id = `rs_${this.output.length}`): this {
    const index = this.output.length;
    this.emit("response.output_item.added", {
      output_index: index,
      item: { id, type: "reasoning", summary: [] },
    });
    summary.forEach((text, summaryIndex) => {
      const part = { item_id: id, output_index: index, summary_index: summaryIndex };
      this.emit("response.reasoning_summary_part.added", { ...part, part: { type: "summary_text", text: "" } });
      this.emit("response.reasoning_summary_text.delta", { ...part, delta: text });
      this.emit("response.reasoning_summary_text.done", { ...part, text });
      this.emit("response.reasoning_summary_part.done", { ...part, part: { type: "summary_text", text } });
    });
    return this.done({
      id,
      type: "reasoning",
      summary: summary.map((text) => ({ type: "summary_text", text })),
      encrypted_content: encrypted,
    });
  }

  /** A hosted web search call. */
  webSearch(query: string, id = `ws_${this.output.length}`): this {
    const index = this.output.length;
    this.emit("response.output_item.added", {
      output_index: index,
      item: { id, type: "web_search_call", status: "in_progress", action: { type: "search", query } },
    });
    this.emit("response.web_search_call.in_progress", { output_index: index, item_id: id });
    this.emit("response.web_search_call.searching", { output_index: index, item_id: id });
    this.emit("response.web_search_call.completed", { output_index: index, item_id: id });
    return this.done({ id, type: "web_search_call", status: "completed", action: { type: "search", query } });
  }

  /**
   * A hosted web search call as the API streams it: the item added without its action, its
   * progress events (`in_progress`, `searching`, and `completed` unless it failed), then the item
   * done with `action` (whose `sources` the request's include asks for) and `status`.
   * `progress: false` leaves the progress events out; `added: false` the added item.
   */
  searchCall(
    action: Json,
    options: {
      readonly id?: string;
      readonly status?: string;
      readonly progress?: boolean;
      readonly added?: boolean;
    } = {},
  ): this {
    const index = this.output.length;
    const id = options.id ?? `ws_${index}`;
    const status = options.status ?? "completed";
    if (options.added !== false) {
      this.emit("response.output_item.added", {
        output_index: index,
        item: { id, type: "web_search_call", status: "in_progress" },
      });
    }
    if (options.progress !== false) {
      this.emit("response.web_search_call.in_progress", { output_index: index, item_id: id });
      this.emit("response.web_search_call.searching", { output_index: index, item_id: id });
      if (status === "completed") this.emit("response.web_search_call.completed", { output_index: index, item_id: id });
    }
    return this.done({ id, type: "web_search_call", status, action });
  }

  completed(usage: UsageSpec = { input: 10, output: 5 }): SseEvent[] {
    this.emit("response.completed", { response: this.response("completed", usage) });
    return this.events;
  }

  incomplete(reason: string, usage: UsageSpec = { input: 10, output: 5 }): SseEvent[] {
    const response = { ...this.response("incomplete", usage), incomplete_details: { reason } };
    this.emit("response.incomplete", { response });
    return this.events;
  }

  failed(code: string | null, message: string): SseEvent[] {
    const response = { ...this.response("failed", null), error: { code, message } };
    this.emit("response.failed", { response });
    return this.events;
  }

  private done(item: Json): this {
    this.emit("response.output_item.done", { output_index: this.output.length, item });
    this.output.push(item);
    return this;
  }

  private response(status: string, usage: UsageSpec | null): Json {
    return {
      id: this.id,
      object: "response",
      created_at: 1_760_000_000,
      status,
      error: null,
      incomplete_details: null,
      model: "gpt-5-codex",
      output: status === "in_progress" ? [] : this.output,
      parallel_tool_calls: true,
      store: false,
      usage:
        usage === null
          ? null
          : {
              input_tokens: usage.input,
              input_tokens_details: { cached_tokens: usage.cached ?? 0 },
              output_tokens: usage.output,
              output_tokens_details: { reasoning_tokens: 0 },
              total_tokens: usage.input + usage.output,
            },
    };
  }
}

/** The final error event's error, or undefined. */
export function errorOf(events: readonly ModelStreamEvent[]): Error | undefined {
  const last = events.at(-1);
  return last?.type === "error" ? last.error : undefined;
}

/** Everything an error shows: message, stack and JSON. */
export function errorTexts(error: unknown): string {
  const value = error as Error;
  return [value?.message, value?.stack, JSON.stringify(value)].join("\n");
}
