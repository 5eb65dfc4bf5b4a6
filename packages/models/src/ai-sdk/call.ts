// One model call through an AI SDK language model: build the call options, run `doStream`,
// map its parts, retry a failure that came before anything was streamed, and end promptly
// with an `error` event when the caller aborts.
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4ProviderTool,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { ModelProviderError, type ModelRequest, type ModelStreamEvent } from "@castellan/harness";
import { abortError, untilAborted } from "../shared/abort.js";
import { malformed } from "../shared/malformed.js";
import type { Prices } from "../shared/pricing.js";
import { finishInBackground } from "../shared/release-body.js";
import { retryBeforeFirstEvent } from "../shared/retry-stream.js";
import { classifyFailure, ERROR_PROVIDER } from "./errors.js";
import { type AiSdkProviderToolMapping, toProviderTools } from "./hosted-tools.js";
import { toFunctionTools, toPrompt } from "./request.js";
import { StreamMapper } from "./stream-mapper.js";

/** The binding's fixed settings, resolved from its options. */
export interface CallSettings {
  readonly specifier: string;
  readonly pricing: Prices | undefined;
  readonly providerOptions: SharedV4ProviderOptions | undefined;
  readonly providerTools: Readonly<Record<string, AiSdkProviderToolMapping>> | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly maxRetries: number;
}

/** Streams one call. Never throws: every failure ends the stream with an `error` event. */
export async function* streamCall(
  model: LanguageModelV4,
  request: ModelRequest,
  signal: AbortSignal,
  settings: CallSettings,
): AsyncGenerator<ModelStreamEvent> {
  if (signal.aborted) {
    yield { type: "error", error: abortError(signal) };
    return;
  }
  let prepared: { readonly options: LanguageModelV4CallOptions; readonly providerTools: LanguageModelV4ProviderTool[] };
  try {
    const providerTools = toProviderTools(
      request.hostedTools,
      model.provider,
      settings.providerTools,
      settings.specifier,
    );
    if (providerTools instanceof ModelProviderError) {
      yield { type: "error", error: providerTools };
      return;
    }
    prepared = { options: callOptions(request, providerTools, settings), providerTools };
  } catch (error) {
    yield { type: "error", error: classifyFailure(error, "request", settings.specifier) };
    return;
  }
  yield* retryBeforeFirstEvent(() => attemptCall(model, prepared.options, prepared.providerTools, signal, settings), {
    maxRetries: settings.maxRetries,
    signal,
  });
}

function callOptions(
  request: ModelRequest,
  providerTools: readonly LanguageModelV4ProviderTool[],
  settings: CallSettings,
): LanguageModelV4CallOptions {
  const tools = [...toFunctionTools(request.tools), ...providerTools];
  return {
    prompt: toPrompt(request),
    ...(tools.length > 0 ? { tools } : {}),
    ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
    // A copy per call: a provider may not change what the binding was given.
    ...(settings.providerOptions === undefined ? {} : { providerOptions: structuredClone(settings.providerOptions) }),
  };
}

/** One attempt: its events, ending with `finish` or with one `error` (the abort's when aborted). */
async function* attemptCall(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  providerTools: readonly LanguageModelV4ProviderTool[],
  signal: AbortSignal,
  settings: CallSettings,
): AsyncGenerator<ModelStreamEvent> {
  const { specifier } = settings;
  // The SDK gets its own signal so the attempt can be torn down however it ends.
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;
  /** Whether the answer is complete: its stream is then read to its end rather than torn down. */
  let ended = false;
  try {
    let result: LanguageModelV4StreamResult;
    try {
      const started = Promise.resolve().then(() => model.doStream({ ...options, abortSignal: controller.signal }));
      result = await untilAborted(started, signal);
    } catch (error) {
      yield {
        type: "error",
        error: signal.aborted ? abortError(signal) : classifyFailure(error, "request", specifier),
      };
      return;
    }
    try {
      reader = result.stream.getReader();
    } catch {
      yield {
        type: "error",
        error: malformed(ERROR_PROVIDER, `${specifier} answered doStream without a readable stream.`),
      };
      return;
    }
    const mapper = new StreamMapper({ specifier, pricing: settings.pricing, providerTools });
    while (true) {
      let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
      try {
        next = await untilAborted(reader.read(), signal);
      } catch (error) {
        yield { type: "error", error: signal.aborted ? abortError(signal) : classifyFailure(error, "read", specifier) };
        return;
      }
      let events: ModelStreamEvent[];
      try {
        events = next.done ? mapper.end() : mapper.map(next.value);
      } catch {
        // A part that does not have the spec's shape.
        yield {
          type: "error",
          error: malformed(ERROR_PROVIDER, `${specifier} sent a stream part that breaks the AI SDK spec.`),
        };
        return;
      }
      for (const event of events) {
        if (event.type === "error") {
          yield { type: "error", error: classifyFailure(event.error, "stream", specifier) };
          return;
        }
        yield event;
        if (event.type === "finish") {
          // The stream ends after its finish part: reading on to that end finishes the request.
          ended = true;
          const finished = reader;
          finishInBackground(finished.read(), () => {
            finished.cancel().catch(() => undefined);
            controller.abort();
          });
          return;
        }
      }
    }
  } finally {
    signal.removeEventListener("abort", forward);
    // Failed, aborted or abandoned by the caller: nothing of the attempt stays open.
    if (!ended) {
      reader?.cancel().catch(() => undefined);
      controller.abort();
    }
  }
}
