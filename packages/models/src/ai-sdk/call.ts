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
import { classifyFailure, ERROR_PROVIDER } from "./errors.js";
import { type AiSdkProviderToolMapping, toProviderTools } from "./hosted-tools.js";
import { toFunctionTools, toPrompt } from "./request.js";
import { StreamMapper } from "./stream-mapper.js";
import type { AiSdkPricing } from "./usage.js";

/** The binding's fixed settings, resolved from its options. */
export interface CallSettings {
  readonly specifier: string;
  readonly pricing: AiSdkPricing | undefined;
  readonly providerOptions: SharedV4ProviderOptions | undefined;
  readonly providerTools: Readonly<Record<string, AiSdkProviderToolMapping>> | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly maxRetries: number;
}

/** The longest `retry-after` a retry waits for; a longer one is reported instead. */
const MAX_RETRY_AFTER_MS = 60_000;
/** The first backoff when the provider gave no `retry-after`; doubled on each retry. */
const FIRST_BACKOFF_MS = 1_000;

/** A failed attempt: its error, and whether anything of it reached the caller. */
interface Failure {
  readonly error: ModelProviderError;
  readonly emitted: boolean;
}

/** Streams one call. Never throws: every failure ends the stream with an `error` event. */
export async function* streamCall(
  model: LanguageModelV4,
  request: ModelRequest,
  signal: AbortSignal,
  settings: CallSettings,
): AsyncGenerator<ModelStreamEvent> {
  if (signal.aborted) {
    yield aborted(signal);
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
  for (let attempt = 0; ; attempt++) {
    const failure = yield* attemptCall(model, prepared.options, prepared.providerTools, signal, settings);
    if (failure === undefined) return;
    const delay = failure.emitted ? undefined : retryDelay(failure.error, attempt, settings.maxRetries);
    if (delay === undefined) {
      yield { type: "error", error: failure.error };
      return;
    }
    if (!(await sleep(delay, signal))) {
      yield aborted(signal);
      return;
    }
  }
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

/**
 * One attempt: yields its events and returns undefined when it finished (or was aborted, with
 * its error event yielded), or returns the failure for the caller to retry or report.
 */
async function* attemptCall(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  providerTools: readonly LanguageModelV4ProviderTool[],
  signal: AbortSignal,
  settings: CallSettings,
): AsyncGenerator<ModelStreamEvent, Failure | undefined> {
  const { specifier } = settings;
  // The SDK gets its own signal so the attempt can be torn down however it ends.
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;
  let emitted = false;
  try {
    let result: LanguageModelV4StreamResult;
    try {
      const started = Promise.resolve().then(() => model.doStream({ ...options, abortSignal: controller.signal }));
      result = await untilAborted(started, signal);
    } catch (error) {
      if (signal.aborted) {
        yield aborted(signal);
        return undefined;
      }
      return { error: classifyFailure(error, "request", specifier), emitted };
    }
    try {
      reader = result.stream.getReader();
    } catch {
      return { error: malformed(`${specifier} answered doStream without a readable stream.`), emitted };
    }
    const mapper = new StreamMapper({ specifier, pricing: settings.pricing, providerTools });
    while (true) {
      let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
      try {
        next = await untilAborted(reader.read(), signal);
      } catch (error) {
        if (signal.aborted) {
          yield aborted(signal);
          return undefined;
        }
        return { error: classifyFailure(error, "read", specifier), emitted };
      }
      let events: ModelStreamEvent[];
      try {
        events = next.done ? mapper.end() : mapper.map(next.value);
      } catch {
        // A part that does not have the spec's shape.
        return { error: malformed(`${specifier} sent a stream part that breaks the AI SDK spec.`), emitted };
      }
      for (const event of events) {
        if (event.type === "error") return { error: classifyFailure(event.error, "stream", specifier), emitted };
        yield event;
        emitted = true;
        if (event.type === "finish") return undefined;
      }
    }
  } finally {
    signal.removeEventListener("abort", forward);
    // Finished, failed, aborted or abandoned by the caller: nothing of the attempt stays open.
    reader?.cancel().catch(() => undefined);
    controller.abort();
  }
}

/** How long to wait before retrying, or undefined when the failure is reported instead. */
function retryDelay(error: ModelProviderError, attempt: number, maxRetries: number): number | undefined {
  if (!error.retryable || attempt >= maxRetries) return undefined;
  if (error.retryAfterMs !== undefined)
    return error.retryAfterMs <= MAX_RETRY_AFTER_MS ? error.retryAfterMs : undefined;
  return FIRST_BACKOFF_MS * 2 ** attempt;
}

/** Waits `ms`; false when the signal aborted first. Leaves no timer or listener behind. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The promise, or a rejection as soon as the signal aborts (so a model that ignores its signal cannot hold the call). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function malformed(message: string): ModelProviderError {
  return new ModelProviderError("model_stream_malformed", message, { provider: ERROR_PROVIDER });
}

function aborted(signal: AbortSignal): ModelStreamEvent {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return { type: "error", error: reason };
  const error = new Error("The model call was aborted.");
  error.name = "AbortError";
  return { type: "error", error };
}
