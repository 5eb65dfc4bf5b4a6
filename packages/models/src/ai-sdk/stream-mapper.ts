// The AI SDK's stream parts → ModelStreamEvents, one part at a time.
import type { LanguageModelV4ProviderTool, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import {
  type JsonObject,
  ModelProviderError,
  type ModelStreamEvent,
  malformedToolCall,
  type StopReason,
} from "@castellan/harness";
import { malformed } from "../shared/malformed.js";
import type { Prices } from "../shared/pricing.js";
import type { AnswerMapping } from "../shared/send-and-read.js";
import { classifyFailure, ERROR_PROVIDER } from "./errors.js";
import { HostedToolEvents } from "./hosted-tool-events.js";
import { unsupportedHostedTool } from "./hosted-tools.js";
import { jsonCopy, metadataJson } from "./provider-blocks.js";
import { content, fileEvents, malformedPart, metadataOf, parseInput } from "./stream-events.js";
import { toUsage } from "./usage.js";

type Part<Type extends LanguageModelV4StreamPart["type"]> = Extract<LanguageModelV4StreamPart, { type: Type }>;

/** What the mapper needs to know about the call. */
export interface StreamMapperOptions {
  readonly specifier: string;
  readonly pricing: Prices | undefined;
  /** The provider tools sent, to notice when the model says it does not support them. */
  readonly providerTools: readonly LanguageModelV4ProviderTool[];
  /** Tool name → hosted kind, for the provider tools whose calls are reported as `hosted-tool` events. */
  readonly hostedKinds?: ReadonlyMap<string, string>;
}

interface OpenText {
  emitted: boolean;
  metadata: unknown;
}

interface OpenReasoning {
  text: string;
  metadata: unknown;
}

interface OpenInput {
  readonly toolName: string;
  readonly textEncoded: boolean;
  readonly providerExecuted: boolean;
  input: string;
  ended: boolean;
  metadata: unknown;
}

/**
 * Maps the parts of one stream in order. Text and reasoning deltas stream as they come; a
 * reasoning block, the metadata of a text block and a tool call's metadata become `ai-sdk`
 * provider blocks in their place (see provider-blocks.ts); tool calls are emitted complete
 * from the SDK's `tool-call` part (or, failing that, from their streamed input when the stream
 * finishes). A provider-run call of a hosted tool (e.g. web search) is also reported as
 * `hosted-tool` events (see hosted-tool-events.ts). A returned `error` or `finish` event is the
 * stream's last.
 */
export class StreamMapper implements AnswerMapping<LanguageModelV4StreamPart> {
  private readonly texts = new Map<string, OpenText>();
  private readonly reasoning = new Map<string, OpenReasoning>();
  private readonly inputs = new Map<string, OpenInput>();
  private readonly calls = new Set<string>();
  private readonly hosted: HostedToolEvents;

  constructor(private readonly options: StreamMapperOptions) {
    this.hosted = new HostedToolEvents(options.hostedKinds ?? new Map());
  }

  /** The events of one part, in order. */
  map(part: LanguageModelV4StreamPart): ModelStreamEvent[] {
    // A hosted tool's outcome takes the url sources right after its result, then goes out.
    if (part.type === "source") {
      this.hosted.source(part);
      return this.mapPart(part);
    }
    const outcome = this.hosted.flush();
    const events = this.mapPart(part);
    return outcome.length > 0 ? [...outcome, ...events] : events;
  }

  private mapPart(part: LanguageModelV4StreamPart): ModelStreamEvent[] {
    switch (part.type) {
      case "stream-start": {
        const error = unsupportedHostedTool(part.warnings, this.options.providerTools, this.options.specifier);
        return error ? [{ type: "error", error }] : [];
      }
      case "text-start":
        this.text(part.id, part.providerMetadata);
        return [];
      case "text-delta": {
        const open = this.text(part.id, part.providerMetadata);
        if (!part.delta) return [];
        open.emitted = true;
        return [{ type: "text-delta", text: part.delta }];
      }
      case "text-end": {
        const open = this.text(part.id, part.providerMetadata);
        this.texts.delete(part.id);
        return this.textMetadata(open);
      }
      case "reasoning-start":
        this.thought(part.id, part.providerMetadata);
        return [];
      case "reasoning-delta": {
        const open = this.thought(part.id, part.providerMetadata);
        open.text += part.delta;
        return part.delta ? [{ type: "thinking-delta", text: part.delta }] : [];
      }
      case "reasoning-end": {
        const open = this.thought(part.id, part.providerMetadata);
        this.reasoning.delete(part.id);
        return [reasoningBlock(open)];
      }
      case "tool-input-start":
        this.inputs.set(part.id, {
          toolName: part.toolName,
          textEncoded: part.inputEncoding === "text",
          providerExecuted: part.providerExecuted === true,
          input: "",
          ended: false,
          metadata: part.providerMetadata,
        });
        return [];
      case "tool-input-delta": {
        const open = this.inputs.get(part.id);
        if (open) open.input += part.delta;
        return [];
      }
      case "tool-input-end": {
        const open = this.inputs.get(part.id);
        if (open) {
          open.ended = true;
          open.metadata = part.providerMetadata ?? open.metadata;
        }
        return [];
      }
      case "tool-call":
        this.inputs.delete(part.toolCallId);
        return this.toolCall(part);
      case "tool-result":
        return part.preliminary ? [] : [this.toolResult(part), ...this.hosted.result(part)];
      case "file":
      case "reasoning-file":
        return fileEvents(part);
      case "custom":
        return [content({ part: "custom", kind: part.kind, ...metadataOf(part.providerMetadata) })];
      case "source":
      case "tool-approval-request":
        return [content({ part: part.type, detail: (jsonCopy(part) ?? {}) as JsonObject })];
      case "finish":
        return this.finish(part);
      case "error":
        return [{ type: "error", error: classifyFailure(part.error, "stream", this.options.specifier) }];
      default:
        // response-metadata, raw, ping, and parts of later spec versions carry nothing to report.
        return [];
    }
  }

  /** The error when the stream ended without a `finish` part: a malformed stream. */
  ended(): Error {
    return malformed(ERROR_PROVIDER, `${this.options.specifier} ended its stream without a finish part.`);
  }

  private text(id: string, metadata: unknown): OpenText {
    let open = this.texts.get(id);
    if (!open) {
      open = { emitted: false, metadata: undefined };
      this.texts.set(id, open);
    }
    // As the AI SDK does, the latest metadata of a part wins.
    if (metadata !== undefined) open.metadata = metadata;
    return open;
  }

  private thought(id: string, metadata: unknown): OpenReasoning {
    let open = this.reasoning.get(id);
    if (!open) {
      open = { text: "", metadata: undefined };
      this.reasoning.set(id, open);
    }
    if (metadata !== undefined) open.metadata = metadata;
    return open;
  }

  private textMetadata(open: OpenText): ModelStreamEvent[] {
    const metadata = metadataJson(open.metadata);
    // Metadata belongs to the text block right before it; a part that streamed no text has none.
    return open.emitted && metadata ? [content({ part: "metadata", metadata })] : [];
  }

  private toolCall(part: Part<"tool-call">): ModelStreamEvent[] {
    const input = parseInput(part.input);
    if (input === undefined && !part.providerExecuted) {
      // Usually arguments cut off at the output limit: the Runner tells the model to send it again.
      if (this.calls.has(part.toolCallId)) return [];
      this.calls.add(part.toolCallId);
      return [{ type: "tool-call", toolCall: malformedToolCall(part.toolCallId, part.toolName, String(part.input)) }];
    }
    if (input === undefined) {
      return [
        malformedPart(
          `${this.options.specifier} sent tool call "${part.toolName}" (${part.toolCallId}) with arguments that are not JSON.`,
        ),
      ];
    }
    const metadata = metadataJson(part.providerMetadata);
    if (part.providerExecuted) {
      return [
        content({
          part: "tool-call",
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input,
          ...(metadata ? { metadata } : {}),
        }),
        ...this.hosted.call(part, input),
      ];
    }
    if (this.calls.has(part.toolCallId)) return [];
    this.calls.add(part.toolCallId);
    const events: ModelStreamEvent[] = [];
    if (metadata) events.push(content({ part: "tool-call-metadata", toolCallId: part.toolCallId, metadata }));
    events.push({ type: "tool-call", toolCall: { id: part.toolCallId, name: part.toolName, input } });
    return events;
  }

  private toolResult(part: Part<"tool-result">): ModelStreamEvent {
    return content({
      part: "tool-result",
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      result: jsonCopy(part.result) ?? null,
      ...(part.isError ? { isError: true } : {}),
      ...metadataOf(part.providerMetadata),
    });
  }

  private finish(part: Part<"finish">): ModelStreamEvent[] {
    const { specifier } = this.options;
    const events: ModelStreamEvent[] = [];
    // Parts a provider left open are closed in the order they started.
    for (const open of this.reasoning.values()) events.push(reasoningBlock(open));
    this.reasoning.clear();
    for (const open of this.texts.values()) events.push(...this.textMetadata(open));
    this.texts.clear();
    for (const [id, open] of this.inputs) {
      if (open.providerExecuted) continue;
      if (!open.ended)
        return [...events, malformedPart(`${specifier} finished while tool call ${id} was still streaming.`)];
      const input = open.textEncoded ? JSON.stringify(open.input) : open.input;
      const mapped = this.toolCall({
        type: "tool-call",
        toolCallId: id,
        toolName: open.toolName,
        input,
        providerMetadata: open.metadata as Part<"tool-call">["providerMetadata"],
      });
      events.push(...mapped);
      if (mapped.some((event) => event.type === "error")) return events;
    }
    this.inputs.clear();
    events.push({ type: "usage", usage: toUsage(part.usage, this.options.pricing) });
    // Older providers send the reason as a plain string.
    const reason: unknown = part.finishReason;
    const unified = typeof reason === "string" ? reason : part.finishReason?.unified;
    if (unified === "error") {
      events.push({
        type: "error",
        error: new ModelProviderError("model_server_error", `${specifier} ended its answer with an error.`, {
          provider: ERROR_PROVIDER,
        }),
      });
    } else if (unified === "interrupted") {
      events.push(malformedPart(`${specifier} ended its stream before the provider said the answer was complete.`));
    } else {
      events.push({ type: "finish", stopReason: this.stopReason(unified) });
    }
    return events;
  }

  private stopReason(unified: string | undefined): StopReason {
    switch (unified) {
      case "stop":
      case "tool-calls":
        // Some providers say `stop` after tool calls; the calls decide.
        return this.calls.size > 0 ? "tool-calls" : "end";
      case "length":
        return "max-tokens";
      case "content-filter":
        return "refusal";
      default:
        return "other";
    }
  }
}

function reasoningBlock(open: OpenReasoning): ModelStreamEvent {
  return content({ part: "reasoning", text: open.text, ...metadataOf(open.metadata) });
}
