// Chat Completions chunks → ModelStreamEvents: text and reasoning deltas as they come,
// `reasoning_details` assembled into a provider block placed before what follows them, tool
// calls assembled per `index` from their argument pieces and parsed once complete, usage from
// the final chunk, and the finish reason mapped to a stop reason.
import {
  type JsonValue,
  type ModelProviderError,
  type ModelStreamEvent,
  malformedToolCall,
  type StopReason,
  type Usage,
} from "@castellan/harness";
import type { Prices } from "../shared/pricing.js";
import { toUsage } from "../shared/usage.js";
import { type ErrorContext, errorFromStreamPayload, malformedAnswer } from "./errors.js";
import { ReasoningDetails, reasoningBlock } from "./reasoning-details.js";
import { usageOf } from "./usage.js";

interface PendingCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

type Json = Record<string, unknown>;

const stopReasons: Readonly<Record<string, StopReason>> = {
  stop: "end",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  length: "max-tokens",
  content_filter: "refusal",
};

/** Assembles one streamed answer. `accept` and `complete` throw ModelProviderError on a broken stream. */
export class ChunkAssembler {
  readonly #context: ErrorContext;
  readonly #pricing: Prices | undefined;
  readonly #calls = new Map<number, PendingCall>();
  readonly #reasoning = new ReasoningDetails((what) => this.#malformed(what));
  #lastSlot: number | undefined;
  #finishReason: string | undefined;
  #usage: Usage | undefined;
  #refused = false;
  #callsEmitted = 0;

  constructor(context: ErrorContext, pricing: Prices | undefined) {
    this.#context = context;
    this.#pricing = pricing;
  }

  /** The events of one `data:` payload. */
  accept(data: string): ModelStreamEvent[] {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      // The parser's message quotes the payload; it is not kept as the cause.
      throw this.#malformed("an event whose data is not JSON");
    }
    if (!isObject(chunk)) throw this.#malformed("an event whose data is not a JSON object");
    if (chunk.error !== undefined && chunk.error !== null) throw errorFromStreamPayload(this.#context, chunk.error);
    if (isObject(chunk.usage)) this.#usage = toUsage(usageOf(chunk.usage), this.#pricing);
    if (chunk.choices !== undefined && chunk.choices !== null && !Array.isArray(chunk.choices)) {
      throw this.#malformed("a chunk whose choices are not a list");
    }
    const events: ModelStreamEvent[] = [];
    for (const choice of (chunk.choices as unknown[] | undefined) ?? []) {
      // Only the first choice is read: the request never asks for more (no `n`).
      if (!isObject(choice) || (choice.index ?? 0) !== 0) continue;
      if (isObject(choice.delta)) this.#acceptDelta(choice.delta, events);
      if (typeof choice.finish_reason === "string") {
        if (choice.finish_reason === "error") throw errorFromStreamPayload(this.#context, undefined);
        this.#finishReason = choice.finish_reason;
        this.#emitCalls(events);
      }
    }
    return events;
  }

  /** The closing events, at `data: [DONE]`: any calls not yet emitted, usage, then finish. */
  complete(): ModelStreamEvent[] {
    if (this.#finishReason === undefined) throw this.#malformed("a stream that ended without a finish reason");
    const events: ModelStreamEvent[] = [];
    this.#emitCalls(events);
    this.#emitReasoning(events);
    if (this.#usage) events.push({ type: "usage", usage: this.#usage });
    let stopReason = stopReasons[this.#finishReason] ?? "other";
    // Some servers say `stop` after tool calls; the calls are what the loop acts on.
    if (this.#callsEmitted > 0 && stopReason === "end") stopReason = "tool-calls";
    if (this.#refused && stopReason === "end") stopReason = "refusal";
    events.push({ type: "finish", stopReason });
    return events;
  }

  #acceptDelta(delta: Json, events: ModelStreamEvent[]): void {
    // OpenRouter's structured reasoning; its readable text also comes as `reasoning`, streamed below.
    this.#reasoning.accept(delta.reasoning_details);
    // Reasoning text as DeepSeek-style servers (`reasoning_content`) and OpenRouter (`reasoning`) stream it.
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning.length > 0) events.push({ type: "thinking-delta", text: reasoning });
    if (typeof delta.content === "string" && delta.content.length > 0) {
      this.#emitReasoning(events);
      events.push({ type: "text-delta", text: delta.content });
    }
    if (typeof delta.refusal === "string" && delta.refusal.length > 0) {
      this.#refused = true;
      this.#emitReasoning(events);
      events.push({ type: "text-delta", text: delta.refusal });
    }
    if (delta.tool_calls === undefined || delta.tool_calls === null) return;
    if (!Array.isArray(delta.tool_calls)) throw this.#malformed("a delta whose tool_calls are not a list");
    for (const piece of delta.tool_calls) {
      if (!isObject(piece)) throw this.#malformed("a tool call piece that is not an object");
      if (this.#callsEmitted > 0) throw this.#malformed("a tool call piece after the finish reason");
      const slot = this.#slotOf(piece);
      const call = this.#calls.get(slot) ?? { id: undefined, name: "", arguments: "" };
      this.#calls.set(slot, call);
      this.#lastSlot = slot;
      if (typeof piece.id === "string" && piece.id.length > 0) call.id ??= piece.id;
      const fn = isObject(piece.function) ? piece.function : {};
      if (typeof fn.name === "string" && fn.name.length > 0) call.name = fn.name;
      if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    }
  }

  /** The call a piece belongs to: its `index`; without one, a new call for a new id, else the last call. */
  #slotOf(piece: Json): number {
    if (typeof piece.index === "number" && Number.isInteger(piece.index) && piece.index >= 0) return piece.index;
    const known = [...this.#calls.entries()].find(([, call]) => call.id !== undefined && call.id === piece.id);
    if (known) return known[0];
    if (typeof piece.id === "string" || this.#lastSlot === undefined) {
      return this.#calls.size === 0 ? 0 : Math.max(...this.#calls.keys()) + 1;
    }
    return this.#lastSlot;
  }

  /**
   * The reasoning entries assembled since the last block, as one provider block ahead of the
   * text or calls they precede (or at the end). Pieces that come after the text began (a late
   * signature) make another block the same way; sending back joins them by index.
   */
  #emitReasoning(events: ModelStreamEvent[]): void {
    const entries = this.#reasoning.take();
    if (entries) events.push({ type: "content", block: reasoningBlock(entries) });
  }

  #emitCalls(events: ModelStreamEvent[]): void {
    if (this.#callsEmitted > 0 || this.#calls.size === 0) return;
    this.#emitReasoning(events);
    const slots = [...this.#calls.keys()].sort((a, b) => a - b);
    for (const slot of slots) {
      const call = this.#calls.get(slot)!;
      if (!call.name) throw this.#malformed(`tool call ${slot} without a function name`);
      const id = call.id ?? `call_${slot}`;
      let input: JsonValue;
      try {
        // Some servers send no arguments for a tool without parameters.
        input = call.arguments.trim() === "" ? {} : (JSON.parse(call.arguments) as JsonValue);
      } catch {
        // Usually arguments cut off at the output limit: the Runner tells the model to send it again.
        events.push({ type: "tool-call", toolCall: malformedToolCall(id, call.name, call.arguments) });
        continue;
      }
      events.push({ type: "tool-call", toolCall: { id, name: call.name, input } });
    }
    this.#callsEmitted = slots.length;
  }

  #malformed(what: string): ModelProviderError {
    return malformedAnswer(this.#context, what);
  }
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
