// One model call through an AI SDK language model: build the call options, and run `doStream`
// with its parts mapped under the shared send-and-read loop and retry policy
// (shared/send-and-read.ts), which also ends the call promptly when the caller aborts.
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4ProviderTool,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { ModelProviderError, type ModelRequest, type ModelStreamEvent } from "@castellan/harness";
import { abortError } from "../shared/abort.js";
import { malformed } from "../shared/malformed.js";
import type { Prices } from "../shared/pricing.js";
import { type OpenAnswer, type ProviderExchange, streamModelCall } from "../shared/send-and-read.js";
import { classifyFailure, ERROR_PROVIDER } from "./errors.js";
import { hostedKinds } from "./hosted-tool-events.js";
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
  const kinds = hostedKinds(request.hostedTools);
  yield* streamModelCall(partsExchange(model, prepared.options, prepared.providerTools, kinds, settings), {
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

/** The parts of a `doStream` result, read one at a time. */
function openParts(result: LanguageModelV4StreamResult, specifier: string): OpenAnswer<LanguageModelV4StreamPart> {
  let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>;
  try {
    reader = result.stream.getReader();
  } catch {
    throw malformed(ERROR_PROVIDER, `${specifier} answered doStream without a readable stream.`);
  }
  return {
    items: {
      next: () =>
        reader
          .read()
          .then((read) => (read.done ? { done: true, value: undefined } : { done: false, value: read.value })),
    },
    // A provider may not listen to its signal: cancelling the reader ends its stream too.
    cancel: () => {
      reader.cancel().catch(() => undefined);
    },
  };
}

/** One attempt's `doStream` call and the reading of its parts, for the shared send-and-read loop. */
function partsExchange(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  providerTools: readonly LanguageModelV4ProviderTool[],
  kinds: ReadonlyMap<string, string>,
  settings: CallSettings,
): ProviderExchange<LanguageModelV4StreamPart> {
  const { specifier } = settings;
  return {
    send: (signal) =>
      // The model gets the attempt's signal, so the attempt can be torn down however it ends.
      // Chained rather than awaited: cancels the SDK makes of its own reader while opening the
      // stream are then not attributed to this adapter by async stack traces.
      model.doStream({ ...options, abortSignal: signal }).then((result) => openParts(result, specifier)),
    mapping: () => new StreamMapper({ specifier, pricing: settings.pricing, providerTools, hostedKinds: kinds }),
    classify(error, site) {
      if (error instanceof ModelProviderError) return error;
      // A part that does not have the spec's shape.
      if (site === "map")
        return malformed(ERROR_PROVIDER, `${specifier} sent a stream part that breaks the AI SDK spec.`);
      return classifyFailure(error, site === "send" ? "request" : "read", specifier);
    },
  };
}
