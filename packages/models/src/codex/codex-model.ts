import {
  DeclarationError,
  type ModelBinding,
  type ModelProviderError,
  type ModelRequest,
  type ModelStreamEvent,
} from "@castellan/harness";
import OpenAI from "openai";
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from "openai/resources/responses/responses";
import type { Stream } from "openai/streaming";
import { abortError, classifyError, malformed, type Redact, redactor } from "./errors.js";
import {
  CHATGPT_CODEX_BASE_URL,
  type CodexOptions,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_RETRIES,
  MAX_RETRIES_LIMIT,
  OPENAI_BASE_URL,
} from "./options.js";
import { buildParams, type RequestSettings } from "./request.js";
import { retryDelay, sleep } from "./retry.js";
import { ResponseStreamMapper } from "./stream-mapper.js";

/** What one binding's calls share; it lives in the binding's closure, never on the binding. */
interface CallContext {
  readonly client: OpenAI;
  readonly settings: RequestSettings;
  readonly options: CodexOptions;
  readonly maxRetries: number;
  readonly redact: Redact;
}

/**
 * A model on the OpenAI Responses API (`POST /responses`, streamed), for API keys and Codex
 * access tokens. Reasoning is requested encrypted and kept as opaque `openai-responses` provider
 * blocks that go back unchanged in later requests, so a restored Session continues its
 * reasoning. Creating the binding connects to nothing; the credential stays in its closure.
 */
export function codex(options: CodexOptions): ModelBinding {
  const { apiKey, accessToken, model } = options;
  if ((apiKey === undefined) === (accessToken === undefined)) {
    throw new DeclarationError("codex needs exactly one of apiKey and accessToken.");
  }
  const credential = (apiKey ?? accessToken) as string;
  if (typeof credential !== "string" || credential.length === 0) {
    throw new DeclarationError("codex needs a non-empty apiKey or accessToken.");
  }
  if (typeof model !== "string" || model.length === 0) throw new DeclarationError("codex needs a model id.");
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
    throw new DeclarationError(`codex maxRetries must be an integer from 0 to ${MAX_RETRIES_LIMIT}.`);
  }
  const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  if (!Number.isInteger(contextWindow) || contextWindow <= 0) {
    throw new DeclarationError("codex contextWindow must be a positive integer.");
  }
  const { maxOutputTokens } = options;
  if (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens <= 0)) {
    throw new DeclarationError("codex maxOutputTokens must be a positive integer.");
  }
  const client = new OpenAI({
    apiKey: credential,
    baseURL: options.baseURL ?? (accessToken !== undefined ? CHATGPT_CODEX_BASE_URL : OPENAI_BASE_URL),
    // Retries are this adapter's: only before anything streamed, and visible in its errors.
    maxRetries: 0,
    // Configuration comes from the options only, never from OPENAI_* environment variables.
    organization: null,
    project: null,
    logLevel: "off",
    ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
  });
  const context: CallContext = {
    client,
    settings: { model, reasoning: options.reasoning ?? {}, maxOutputTokens },
    options,
    maxRetries,
    redact: redactor(credential),
  };
  return {
    specifier: options.specifier ?? `codex/${model}`,
    contextWindow,
    stream: (request, { signal }) => streamResponse(context, request, signal),
  };
}

async function* streamResponse(
  context: CallContext,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent> {
  let params: ResponseCreateParamsStreaming;
  try {
    params = buildParams(request, context.settings);
  } catch (error) {
    yield { type: "error", error: classifyError(error, context.redact, undefined) };
    return;
  }
  for (let attempt = 0; ; attempt++) {
    const failure = yield* attemptOnce(context, params, signal);
    if (failure === undefined) return;
    const delay = retryDelay(failure, attempt, context.maxRetries);
    if (delay === undefined) {
      yield { type: "error", error: failure };
      return;
    }
    try {
      await sleep(delay, signal);
    } catch {
      yield { type: "error", error: abortError(signal) };
      return;
    }
  }
}

/**
 * One request. Streams its events and returns undefined, or returns the failure without having
 * yielded anything, so the caller may retry it. A failure after the first event is yielded
 * as the stream's last event; an abort always is.
 */
async function* attemptOnce(
  context: CallContext,
  params: ResponseCreateParamsStreaming,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent, ModelProviderError | undefined> {
  const { client, redact } = context;
  if (signal.aborted) {
    yield { type: "error", error: abortError(signal) };
    return undefined;
  }
  let stream: Stream<ResponseStreamEvent>;
  let requestId: string | undefined;
  try {
    const answer = await client.responses.create(params, { signal }).withResponse();
    stream = answer.data;
    requestId = answer.request_id ?? undefined;
  } catch (error) {
    if (signal.aborted) {
      yield { type: "error", error: abortError(signal) };
      return undefined;
    }
    return classifyError(error, redact, undefined);
  }
  const mapper = new ResponseStreamMapper(context.options.pricing, redact, requestId);
  let yielded = false;
  try {
    // The SDK ends the iteration quietly when the signal aborts; that is checked after the loop.
    for await (const event of stream) {
      for (const mapped of mapper.map(event)) {
        yielded = true;
        yield mapped;
      }
      if (mapper.finished) return undefined;
    }
    if (signal.aborted) {
      yield { type: "error", error: abortError(signal) };
      return undefined;
    }
    throw malformed("The Responses stream ended without response.completed.", requestId);
  } catch (error) {
    if (signal.aborted) {
      yield { type: "error", error: abortError(signal) };
      return undefined;
    }
    const failure = classifyError(error, redact, requestId);
    if (!yielded) return failure;
    yield { type: "error", error: failure };
    return undefined;
  } finally {
    // Ends the request when the stream stops early (an error, or the consumer stopped reading).
    stream.controller.abort();
  }
}
