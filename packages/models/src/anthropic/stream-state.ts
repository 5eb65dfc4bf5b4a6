// Follows Anthropic's stream protocol (message_start, content blocks started, extended and
// stopped by index, message_delta, message_stop) and turns it into harness stream events.
import type { Anthropic } from "@anthropic-ai/sdk";
import { type JsonValue, type ModelStreamEvent, malformedToolCall, type StopReason } from "@castellan/harness";
import { malformed } from "../shared/malformed.js";
import type { Prices } from "../shared/pricing.js";
import type { AnswerMapping } from "../shared/send-and-read.js";
import { PROVIDER } from "./errors.js";
import { WebSearchEvents } from "./hosted-tools.js";
import { hasCitations, PROVIDER_NAME } from "./messages.js";
import { type AnthropicTokenCounts, toUsage } from "./usage.js";

/** The stream broke Anthropic's protocol; `map` turns it into `model_stream_malformed`. */
class ProtocolError extends Error {}

/** A content block being streamed. */
type OpenBlock =
  /**
   * A text block, kept whole as it grows: one that carries citations (web search results) is
   * emitted as a provider block after its text (see messages.ts), the others only as text.
   */
  | { readonly kind: "text"; readonly block: Record<string, unknown> }
  | { readonly kind: "tool"; readonly id: string; readonly name: string; readonly initial: unknown; json: string }
  /** Any other block (thinking, redacted thinking, server tool blocks), kept whole and opaque. */
  | { readonly kind: "opaque"; readonly block: Record<string, unknown>; json: string | undefined };

/** The index a block carried in `message_start` is handled under: no streamed block has it. */
const START_BLOCK = -1;

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: "end",
  stop_sequence: "end",
  tool_use: "tool-calls",
  max_tokens: "max-tokens",
  // Generation ran out of room in the context window: the answer was cut short.
  model_context_window_exceeded: "max-tokens",
  refusal: "refusal",
};

/**
 * The state of one streamed message, the Anthropic mapping of the shared send-and-read loop.
 * `map` returns the harness events an Anthropic event produces and throws a
 * `model_stream_malformed` error when the stream breaks the protocol. Unknown event and delta
 * types are ignored, as Anthropic's versioning policy asks of clients.
 */
export class StreamState implements AnswerMapping<Anthropic.RawMessageStreamEvent | { readonly type: string }> {
  private started = false;
  private stopped = false;
  /** The id `message_start` gave, to tell a repeat of it from the start of another message. */
  private messageId: string | undefined;
  private readonly blocks = new Map<number, OpenBlock>();
  private counts: AnthropicTokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  private stopReason: StopReason = "other";
  private readonly searches = new WebSearchEvents();

  constructor(
    private readonly pricing: Prices | undefined,
    private readonly requestId: string | undefined,
  ) {}

  map(event: Anthropic.RawMessageStreamEvent | { readonly type: string }): ModelStreamEvent[] {
    try {
      return this.accept(event);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      throw malformed(PROVIDER, `Anthropic's stream broke its protocol: ${error.message}`, {
        requestId: this.requestId,
      });
    }
  }

  ended(): Error {
    return malformed(PROVIDER, "Anthropic's stream ended before message_stop: the answer is incomplete.", {
      requestId: this.requestId,
    });
  }

  private accept(event: Anthropic.RawMessageStreamEvent | { readonly type: string }): ModelStreamEvent[] {
    if (this.stopped) return [];
    const known = event as Anthropic.RawMessageStreamEvent;
    if (known.type !== "message_start" && !this.started && isProtocolEvent(known.type)) {
      throw new ProtocolError(`"${known.type}" arrived before message_start.`);
    }
    switch (known.type) {
      case "message_start":
        return this.messageStart(known.message);
      case "content_block_start":
        return this.start(known.index, known.content_block as unknown as Record<string, unknown>);
      case "content_block_delta":
        return this.delta(known.index, known.delta);
      case "content_block_stop":
        return this.stop(known.index);
      case "message_delta":
        if (known.delta?.stop_reason) this.stopReason = STOP_REASONS[known.delta.stop_reason] ?? "other";
        this.counts = merge(this.counts, known.usage);
        return [];
      case "message_stop":
        if (this.blocks.size > 0) throw new ProtocolError("message_stop arrived while a content block was open.");
        this.stopped = true;
        return [
          { type: "usage", usage: toUsage(this.counts, this.pricing) },
          { type: "finish", stopReason: this.stopReason },
        ];
      default:
        return [];
    }
  }

  /**
   * The message's start. Its usage is the first count; a `stop_reason` or content blocks it
   * already carries (Anthropic sends `content: []` and `stop_reason: null`, but the message
   * object may hold both) are taken as if streamed, the blocks complete and in order. A second
   * `message_start` with the same id is a repeat and ignored; one with another id is a protocol
   * error, since one stream carries one message.
   */
  private messageStart(message: Partial<Anthropic.Message> | undefined): ModelStreamEvent[] {
    const id = typeof message?.id === "string" ? message.id : undefined;
    if (this.started) {
      if (id === this.messageId) return [];
      throw new ProtocolError("message_start arrived again for a different message.");
    }
    this.started = true;
    this.messageId = id;
    this.counts = merge(this.counts, message?.usage);
    if (message?.stop_reason) this.stopReason = STOP_REASONS[message.stop_reason] ?? "other";
    const content: unknown = message?.content;
    if (content === undefined || content === null) return [];
    if (!Array.isArray(content)) throw new ProtocolError("message_start carried content that is not a list.");
    const events: ModelStreamEvent[] = [];
    for (const block of content) {
      // Each block is complete: it opens and closes at once, so it never meets a streamed one.
      events.push(...this.start(START_BLOCK, block as Record<string, unknown>), ...this.stop(START_BLOCK));
    }
    return events;
  }

  private start(index: number, block: Record<string, unknown>): ModelStreamEvent[] {
    if (typeof index !== "number" || block === null || typeof block !== "object") {
      throw new ProtocolError("content_block_start without an index or a block.");
    }
    if (this.blocks.has(index)) throw new ProtocolError(`Content block ${index} started twice.`);
    switch (block.type) {
      case "text": {
        const text = typeof block.text === "string" ? block.text : "";
        // A copy, and a copy of its citations, since both grow with the deltas.
        const kept: Record<string, unknown> = { ...block, text };
        if (Array.isArray(block.citations)) kept.citations = [...block.citations];
        this.blocks.set(index, { kind: "text", block: kept });
        return text ? [{ type: "text-delta", text }] : [];
      }
      case "tool_use":
        if (typeof block.id !== "string" || typeof block.name !== "string") {
          throw new ProtocolError(`Tool use block ${index} has no id or name.`);
        }
        this.blocks.set(index, { kind: "tool", id: block.id, name: block.name, initial: block.input, json: "" });
        return [];
      default:
        this.blocks.set(index, { kind: "opaque", block: { ...block }, json: undefined });
        return typeof block.thinking === "string" && block.thinking
          ? [{ type: "thinking-delta", text: block.thinking }]
          : [];
    }
  }

  private delta(index: number, delta: Anthropic.RawContentBlockDelta): ModelStreamEvent[] {
    const open = this.blocks.get(index);
    if (!open) throw new ProtocolError(`A delta arrived for content block ${index}, which is not open.`);
    switch (delta?.type) {
      case "text_delta":
        if (open.kind === "text") {
          if (typeof delta.text !== "string" || !delta.text) return [];
          open.block.text += delta.text;
          return [{ type: "text-delta", text: delta.text }];
        }
        if (open.kind === "opaque" && typeof open.block.text === "string") open.block.text += delta.text;
        else throw new ProtocolError(`A text delta arrived for content block ${index}, which holds no text.`);
        return [];
      case "input_json_delta":
        if (open.kind === "tool") open.json += delta.partial_json;
        else if (open.kind === "opaque") open.json = (open.json ?? "") + delta.partial_json;
        else throw new ProtocolError(`An input delta arrived for text block ${index}.`);
        return [];
      case "thinking_delta":
        if (open.kind !== "opaque" || open.block.type !== "thinking") {
          throw new ProtocolError(`A thinking delta arrived for content block ${index}, which is not thinking.`);
        }
        open.block.thinking = String(open.block.thinking ?? "") + delta.thinking;
        return delta.thinking ? [{ type: "thinking-delta", text: delta.thinking }] : [];
      case "signature_delta":
        if (open.kind !== "opaque" || open.block.type !== "thinking") {
          throw new ProtocolError(`A signature delta arrived for content block ${index}, which is not thinking.`);
        }
        // The signature is kept byte for byte: it is what lets Anthropic verify the block later.
        open.block.signature = String(open.block.signature ?? "") + delta.signature;
        return [];
      case "citations_delta": {
        // A citation of a text block (a web search result it draws on), kept in its block.
        if (open.kind !== "text") return [];
        const citations = Array.isArray(open.block.citations) ? (open.block.citations as unknown[]) : [];
        citations.push(delta.citation);
        open.block.citations = citations;
        return [];
      }
      default:
        // Newer delta types: not part of what the harness keeps.
        return [];
    }
  }

  private stop(index: number): ModelStreamEvent[] {
    const open = this.blocks.get(index);
    if (!open) throw new ProtocolError(`content_block_stop arrived for block ${index}, which is not open.`);
    this.blocks.delete(index);
    switch (open.kind) {
      case "text":
        return hasCitations(open.block)
          ? [{ type: "content", block: { type: "provider", provider: PROVIDER_NAME, data: open.block as JsonValue } }]
          : [];
      case "tool": {
        const input = parseToolInput(open.json, open.initial);
        // Input that is not JSON (usually cut off at max_tokens) is the Runner's to settle.
        const toolCall =
          input === undefined
            ? malformedToolCall(open.id, open.name, open.json)
            : { id: open.id, name: open.name, input };
        return [{ type: "tool-call", toolCall }];
      }
      case "opaque": {
        const block =
          open.json === undefined
            ? open.block
            : { ...open.block, input: parseInput(open.json, index, open.block.input) };
        return [
          { type: "content", block: { type: "provider", provider: PROVIDER_NAME, data: block as JsonValue } },
          // A web search call or result: its status after its block.
          ...this.searches.of(block),
        ];
      }
    }
  }
}

/**
 * The input a tool use block streamed in pieces. With no piece, the input the block started
 * with (Anthropic starts with `{}` and streams the rest), or `{}`. Undefined when the pieces
 * are not JSON.
 */
function parseToolInput(json: string, initial: unknown): JsonValue | undefined {
  if (json.trim() === "") {
    return initial !== null && typeof initial === "object" && !Array.isArray(initial) ? (initial as JsonValue) : {};
  }
  try {
    return JSON.parse(json) as JsonValue;
  } catch {
    return undefined;
  }
}

/** The input of an opaque block (a server tool use) streamed in pieces; it must be JSON. */
function parseInput(json: string, index: number, initial: unknown): JsonValue {
  const input = parseToolInput(json, initial);
  if (input === undefined) throw new ProtocolError(`The input of content block ${index} is not valid JSON.`);
  return input;
}

/** Later counts replace earlier ones: Anthropic's counts are cumulative. */
function merge(
  counts: AnthropicTokenCounts,
  usage: Partial<Anthropic.MessageDeltaUsage> | Partial<Anthropic.Usage> | null | undefined,
): AnthropicTokenCounts {
  if (!usage) return counts;
  const searches = usage.server_tool_use?.web_search_requests;
  const webSearchRequests = isCount(searches) ? searches : counts.webSearchRequests;
  return {
    input: count(usage.input_tokens, counts.input),
    output: count(usage.output_tokens, counts.output),
    cacheRead: count(usage.cache_read_input_tokens, counts.cacheRead),
    cacheWrite: count(usage.cache_creation_input_tokens, counts.cacheWrite),
    ...(webSearchRequests === undefined ? {} : { webSearchRequests }),
  };
}

function count(value: number | null | undefined, previous: number): number {
  return isCount(value) ? value : previous;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isProtocolEvent(type: string): boolean {
  return (
    type === "content_block_start" ||
    type === "content_block_delta" ||
    type === "content_block_stop" ||
    type === "message_delta" ||
    type === "message_stop"
  );
}
