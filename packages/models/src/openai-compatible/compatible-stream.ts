// The streaming call shared by `openaiCompatible` and `openrouter`: one Chat Completions request
// per attempt through the SDK, the answer's event stream decoded and assembled into events, and
// bounded retries only while nothing has been streamed.
import { ModelProviderError, type ModelRequest, type ModelStreamEvent } from "@castellan/harness";
import type { OpenAI } from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { abortError } from "../shared/abort.js";
import type { Prices } from "../shared/pricing.js";
import { retryBeforeFirstEvent } from "../shared/retry-stream.js";
import { ChunkAssembler } from "./chunk-assembler.js";
import { type ErrorContext, errorFromDisconnect, errorFromRequest, malformedAnswer, sentence } from "./errors.js";
import { type ChatRequestOptions, chatRequestBody } from "./request-mapping.js";
import { readSse, SseReadError } from "./sse.js";

/** What the shared stream needs from an adapter. */
export interface CompatibleStreamConfig {
  readonly context: ErrorContext;
  readonly client: OpenAI;
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
    yield* retryBeforeFirstEvent(() => streamOnce(config, body, signal), { maxRetries: config.maxRetries, signal });
  };
}

/** One attempt: its events, ending with `finish` or with one `error`. */
async function* streamOnce(
  config: CompatibleStreamConfig,
  body: ChatCompletionCreateParamsStreaming,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent> {
  const { context } = config;
  let response: Response;
  try {
    response = await config.client.chat.completions.create(body, { signal, maxRetries: 0 }).asResponse();
  } catch (error) {
    yield { type: "error", error: errorFromRequest(context, error, signal) };
    return;
  }
  const contentType = response.headers.get("content-type") ?? "";
  if (!response.body || !contentType.includes("text/event-stream")) {
    // Not read, so its connection is closed rather than left open.
    await response.body?.cancel().catch(() => undefined);
    yield {
      type: "error",
      error: malformedAnswer(context, `an answer of type "${contentType}" instead of an event stream`),
    };
    return;
  }
  const assembler = new ChunkAssembler(context, config.pricing());
  let complete = false;
  try {
    // Leaving this loop, however it happens, lets readSse release the body: read to its end
    // after a complete answer, cancelled (ending the request) otherwise.
    for await (const message of readSse(response.body, { isComplete: () => complete })) {
      if (message.data === "[DONE]") {
        complete = true;
        yield* assembler.complete();
        return;
      }
      yield* assembler.accept(message.data);
    }
    yield { type: "error", error: malformedAnswer(context, "a stream that ended without data: [DONE]") };
  } catch (error) {
    if (signal.aborted) yield { type: "error", error: abortError(signal) };
    else if (error instanceof SseReadError)
      yield { type: "error", error: errorFromDisconnect(context, error.cause, signal) };
    else yield { type: "error", error: asError(error) };
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
