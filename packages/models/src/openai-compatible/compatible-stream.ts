// The streaming call shared by `openaiCompatible` and `openrouter`: one Chat Completions request
// per attempt through the SDK, the answer's event stream decoded and assembled into events, run
// by the shared send-and-read loop and retry policy (shared/send-and-read.ts).
import { ModelProviderError, type ModelRequest, type ModelStreamEvent } from "@castellan/harness";
import type { OpenAI } from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { abortError } from "../shared/abort.js";
import type { Prices } from "../shared/pricing.js";
import { type ProviderExchange, streamModelCall } from "../shared/send-and-read.js";
import { readSse, type SseMessage } from "../shared/sse.js";
import { ChunkAssembler } from "./chunk-assembler.js";
import { type ErrorContext, errorFromDisconnect, errorFromRequest, malformedAnswer, sentence } from "./errors.js";
import { type ChatRequestOptions, chatRequestBody } from "./request-mapping.js";

/** What the shared stream needs from an adapter. */
export interface CompatibleStreamConfig {
  readonly context: ErrorContext;
  /** The SDK client, made on the first request. */
  readonly client: () => Promise<OpenAI>;
  readonly request: ChatRequestOptions;
  /** Further attempts after a retryable failure before anything was streamed. */
  readonly maxRetries: number;
  /** The prices at the time of the call (OpenRouter learns them from its catalog). */
  pricing(): Prices | undefined;
  /** Runs before the first request of every call, e.g. OpenRouter's catalog check; a failure ends the stream. */
  prepare?(signal: AbortSignal): Promise<void>;
}

/** The `stream` method of a binding built on `config`. */
export function compatibleStream(
  config: CompatibleStreamConfig,
): (request: ModelRequest, options: { readonly signal: AbortSignal }) => AsyncGenerator<ModelStreamEvent> {
  return async function* stream(request, { signal }) {
    const { context } = config;
    if (request.hostedTools.length > 0) {
      const names = request.hostedTools.map((tool) => `${tool.name} (${tool.hosted.kind})`).join(", ");
      yield {
        type: "error",
        error: new ModelProviderError(
          "model_unsupported",
          `${sentence(context.label)} cannot serve provider-hosted tools over Chat Completions: ${names}. Remove them from the agent or use an adapter that supports them.`,
          { provider: context.provider },
        ),
      };
      return;
    }
    if (signal.aborted) {
      yield { type: "error", error: abortError(signal) };
      return;
    }
    try {
      await config.prepare?.(signal);
    } catch (error) {
      yield { type: "error", error: signal.aborted ? abortError(signal) : asError(error) };
      return;
    }
    const body = chatRequestBody(request, config.request);
    yield* streamModelCall(chatExchange(config, body, signal), { maxRetries: config.maxRetries, signal });
  };
}

/** One attempt's request and the reading of its answer, for the shared send-and-read loop. */
function chatExchange(
  config: CompatibleStreamConfig,
  body: ChatCompletionCreateParamsStreaming,
  callSignal: AbortSignal,
): ProviderExchange<SseMessage> {
  const { context } = config;
  return {
    async send(signal) {
      const client = await config.client();
      const response = await client.chat.completions.create(body, { signal, maxRetries: 0 }).asResponse();
      const contentType = response.headers.get("content-type") ?? "";
      if (!response.body || !contentType.includes("text/event-stream")) {
        // Not read, so its connection is closed rather than left open.
        await response.body?.cancel().catch(() => undefined);
        throw malformedAnswer(context, `an answer of type "${contentType}" instead of an event stream`);
      }
      const reader = response.body.getReader();
      return {
        items: readSse(reader),
        cancel: () => {
          reader.cancel().catch(() => undefined);
        },
      };
    },
    mapping() {
      const assembler = new ChunkAssembler(context, config.pricing());
      return {
        map: (message) => (message.data === "[DONE]" ? assembler.complete() : assembler.accept(message.data)),
        ended: () => malformedAnswer(context, "a stream that ended without data: [DONE]"),
      };
    },
    classify(error, site) {
      if (site === "send") return errorFromRequest(context, error, callSignal);
      if (site === "read") return errorFromDisconnect(context, error, callSignal);
      return asError(error);
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
