// Maps Responses stream events to model stream events, one event at a time.
import {
  type JsonValue,
  type ModelStreamEvent,
  malformedToolCall,
  type Redactor,
  type StopReason,
  type ToolCall,
} from "@castellan/harness";
import { malformed } from "../shared/malformed.js";
import type { Prices } from "../shared/pricing.js";
import type { AnswerMapping } from "../shared/send-and-read.js";
import { PROVIDER, responseError } from "./errors.js";
import { RESPONSES_PROVIDER } from "./input-items.js";
import { messageMarker } from "./message-marker.js";
import { toUsage } from "./usage.js";
import { WebSearchCallEvents } from "./web-search-events.js";

type Json = Record<string, JsonValue>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The state of one response stream, the Responses mapping of the shared send-and-read loop:
 * tool-call arguments as they arrive and how the response stopped. `map` throws a
 * ModelProviderError when the response fails or the stream breaks its protocol; the answer is
 * complete at `response.completed` or `response.incomplete`.
 */
export class ResponseStreamMapper implements AnswerMapping<unknown> {
  /** Function-call arguments so far, by item id. */
  private readonly argumentsById = new Map<string, string>();
  private calledTools = false;
  private refused = false;
  /** Whether text was emitted since the last content block: a new message item must not continue it. */
  private textSinceBlock = false;
  private readonly searches = new WebSearchCallEvents();

  constructor(
    private readonly pricing: Prices | undefined,
    private readonly redact: Redactor,
    private readonly requestId: string | undefined,
  ) {}

  ended(): Error {
    return malformed(PROVIDER, "The Responses stream ended without response.completed.", {
      requestId: this.requestId,
    });
  }

  map(raw: unknown): ModelStreamEvent[] {
    if (!isObject(raw) || typeof raw.type !== "string") throw this.broken("an event without a type");
    const event = raw;
    switch (event.type) {
      case "response.output_text.delta":
        return this.text(event);
      case "response.refusal.delta":
        this.refused = true;
        return this.text(event);
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return this.delta("thinking-delta", event);
      case "response.reasoning_summary_part.added":
        // Summary parts are paragraphs; keep them apart in the thinking text.
        return typeof event.summary_index === "number" && event.summary_index > 0
          ? [{ type: "thinking-delta", text: "\n\n" }]
          : [];
      case "response.output_item.added":
        if (isObject(event.item) && event.item.type === "function_call" && typeof event.item.id === "string") {
          this.argumentsById.set(event.item.id, typeof event.item.arguments === "string" ? event.item.arguments : "");
        }
        if (isObject(event.item) && event.item.type === "web_search_call" && typeof event.item.id === "string") {
          return this.searches.started(event.item.id, event.item);
        }
        // A message that follows another message's text starts a text block of its own.
        if (isObject(event.item) && event.item.type === "message" && this.textSinceBlock) {
          return [this.block(messageMarker(undefined))];
        }
        return [];
      case "response.function_call_arguments.delta":
        if (typeof event.item_id !== "string" || typeof event.delta !== "string") throw this.broken(event.type);
        this.argumentsById.set(event.item_id, (this.argumentsById.get(event.item_id) ?? "") + event.delta);
        return [];
      case "response.function_call_arguments.done":
        if (typeof event.item_id !== "string" || typeof event.arguments !== "string") throw this.broken(event.type);
        this.argumentsById.set(event.item_id, event.arguments);
        return [];
      case "response.web_search_call.in_progress":
      case "response.web_search_call.searching":
        // The call's start, when its added item was not seen.
        return typeof event.item_id === "string" ? this.searches.started(event.item_id) : [];
      case "response.output_item.done":
        if (!isObject(event.item) || typeof event.item.type !== "string") throw this.broken(event.type);
        return this.itemDone(event.item);
      case "response.completed":
        return this.finish(event, this.calledTools ? "tool-calls" : this.refused ? "refusal" : "end");
      case "response.incomplete": {
        const response = isObject(event.response) ? event.response : {};
        const details = isObject(response.incomplete_details) ? response.incomplete_details : {};
        const stop: StopReason =
          details.reason === "max_output_tokens"
            ? "max-tokens"
            : details.reason === "content_filter"
              ? "refusal"
              : "other";
        return this.finish(event, stop);
      }
      case "response.failed": {
        const response = isObject(event.response) ? event.response : {};
        const error = isObject(response.error) ? response.error : {};
        throw responseError(error.code, error.message, this.redact, this.requestId);
      }
      case "error":
        throw responseError(event.code, event.message, this.redact, this.requestId);
      default:
        // Lifecycle and part events (created, in_progress, content_part.*, *.done,
        // web_search_call.completed) carry nothing the complete items do not.
        return [];
    }
  }

  private broken(what: string) {
    return malformed(PROVIDER, `The Responses stream sent a malformed event: ${what}.`, { requestId: this.requestId });
  }

  private delta(type: "text-delta" | "thinking-delta", event: Json): ModelStreamEvent[] {
    if (typeof event.delta !== "string") throw this.broken(String(event.type));
    return event.delta ? [{ type, text: event.delta }] : [];
  }

  private text(event: Json): ModelStreamEvent[] {
    const events = this.delta("text-delta", event);
    if (events.length > 0) this.textSinceBlock = true;
    return events;
  }

  /** A provider block of this adapter, which also ends the text before it. */
  private block(data: Json): ModelStreamEvent {
    this.textSinceBlock = false;
    return { type: "content", block: { type: "provider", provider: RESPONSES_PROVIDER, data } };
  }

  private itemDone(item: Json): ModelStreamEvent[] {
    if (item.type === "message") {
      // The text arrived as deltas. A phase (gpt-5.x codex models label their messages
      // `commentary` or `final_answer`) is kept after the text it labels, to be sent back on it.
      return typeof item.phase === "string" ? [this.block(messageMarker(item.phase))] : [];
    }
    if (item.type === "web_search_call") {
      // Kept whole, in place, and sent back unchanged; its outcome follows it.
      return [this.block(item), ...this.searches.done(item)];
    }
    if (item.type !== "function_call") {
      // Reasoning (with its encrypted content) and anything newer: kept whole, in place, and
      // sent back unchanged.
      return [this.block(item)];
    }
    if (typeof item.call_id !== "string" || typeof item.name !== "string")
      throw this.broken("a function call without call_id or name");
    const streamed = typeof item.id === "string" ? this.argumentsById.get(item.id) : undefined;
    const args = typeof item.arguments === "string" ? item.arguments : (streamed ?? "");
    let toolCall: ToolCall;
    try {
      toolCall = {
        id: item.call_id,
        name: item.name,
        input: args.trim() === "" ? {} : (JSON.parse(args) as JsonValue),
      };
    } catch {
      // Usually arguments cut off at max_output_tokens: the Runner tells the model to send it again.
      toolCall = malformedToolCall(item.call_id, item.name, args);
    }
    this.calledTools = true;
    // The item marks the call's place among the output items and keeps its exact arguments.
    return [this.block({ ...item, arguments: args }), { type: "tool-call", toolCall }];
  }

  private finish(event: Json, stopReason: StopReason): ModelStreamEvent[] {
    const response = isObject(event.response) ? event.response : {};
    const usage = toUsage(response.usage, this.pricing);
    return [...(usage ? [{ type: "usage", usage } as const] : []), { type: "finish", stopReason }];
  }
}
