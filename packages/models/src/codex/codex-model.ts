import {
  createRedactor,
  DeclarationError,
  type ModelBinding,
  type ModelRequest,
  type ModelStreamEvent,
  type Redactor,
} from "@castellan/harness";
import type OpenAI from "openai";
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";
import { openaiSdk } from "../openai-compatible/sdk.js";
import { onFirstUse } from "../shared/lazy-module.js";
import { checkPricing, type Prices } from "../shared/pricing.js";
import { retryCount } from "../shared/retry.js";
import { type ProviderExchange, streamModelCall } from "../shared/send-and-read.js";
import { type SseAnswer, type SseMessage, sseAnswer } from "../shared/sse.js";
import { codexContextWindow } from "./context-windows.js";
import { classifyError } from "./errors.js";
import { CHATGPT_CODEX_BASE_URL, type CodexOptions, OPENAI_BASE_URL } from "./options.js";
import { buildParams, type RequestSettings } from "./request.js";
import { responsesEventData, streamDone } from "./sse-events.js";
import { ResponseStreamMapper } from "./stream-mapper.js";

/** What one binding's calls share; it lives in the binding's closure, never on the binding. */
interface CallContext {
  /** The SDK client, made on the first request. */
  readonly client: () => Promise<OpenAI>;
  readonly settings: RequestSettings;
  readonly prices: Prices | undefined;
  readonly maxRetries: number;
  readonly redact: Redactor;
}

/**
 * A model on the OpenAI Responses API (`POST /responses`, streamed), for API keys and Codex
 * access tokens. Reasoning is requested encrypted and kept as opaque `openai-responses` provider
 * blocks that go back unchanged in later requests, so a restored Session continues its
 * reasoning. A `web-search` hosted tool is the Responses `web_search` tool (`allowedDomains`,
 * `searchContextSize`; any other option or kind ends the call with `model_unsupported` before
 * anything is sent); its `web_search_call` items are kept the same way, and its progress is
 * reported as `hosted-tool` events with the queries and sources. Creating the binding connects
 * to nothing; the credential stays in its closure.
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
  const maxRetries = retryCount(options.maxRetries, "codex");
  if (options.contextWindow !== undefined && (!Number.isInteger(options.contextWindow) || options.contextWindow <= 0)) {
    throw new DeclarationError("codex contextWindow must be a positive integer.");
  }
  const contextWindow = options.contextWindow ?? codexContextWindow(model);
  const { maxOutputTokens } = options;
  if (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens <= 0)) {
    throw new DeclarationError("codex maxOutputTokens must be a positive integer.");
  }
  const prices = checkPricing(options.pricing, "codex");
  const client = onFirstUse(async () => {
    const { default: OpenAI } = await openaiSdk.load();
    return new OpenAI({
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
  });
  const context: CallContext = {
    client,
    settings: { model, reasoning: options.reasoning ?? {}, maxOutputTokens },
    prices,
    maxRetries,
    redact: createRedactor([credential]),
  };
  return {
    specifier: options.specifier ?? `codex/${model}`,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
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
  yield* streamModelCall(responsesExchange(context, params), { maxRetries: context.maxRetries, signal });
}

/** One attempt's request and the reading of its answer, for the shared send-and-read loop. */
function responsesExchange(
  context: CallContext,
  params: ResponseCreateParamsStreaming,
): ProviderExchange<SseMessage, SseAnswer> {
  const { client, redact, prices } = context;
  return {
    async send(signal) {
      // The raw body, decoded here: the SDK's own stream iterator costs more than the request.
      const response = await (await client()).responses.create(params, { signal }).asResponse();
      return sseAnswer(response, response.headers.get("x-request-id") ?? undefined);
    },
    mapping: ({ requestId, headers }) => {
      const mapper = new ResponseStreamMapper(prices, redact, requestId);
      return {
        map: (message) => {
          const data = responsesEventData(message, headers);
          // The SDK stopped reading at `[DONE]`: before the response completed, the answer is cut short.
          if (data === streamDone) throw mapper.ended();
          return mapper.map(data);
        },
        ended: () => mapper.ended(),
      };
    },
    classify: (error, _site, requestId) => classifyError(error, redact, requestId),
  };
}
