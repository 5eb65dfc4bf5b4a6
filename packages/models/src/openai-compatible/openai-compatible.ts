import { DeclarationError, type ModelBinding } from "@castellan/harness";
import type { ModelPricing } from "../shared/pricing.js";
import { createChatClient } from "./client.js";
import { compatibleStream } from "./compatible-stream.js";
import { chatCallSettings, checkHeaders, requireHttpUrl, requireText } from "./options.js";

/** Options of `openaiCompatible`. */
export interface OpenAICompatibleOptions {
  /** The API root, version path included, e.g. `https://api.example.com/v1` or `http://localhost:11434/v1`. */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer …`; kept inside the binding. Servers that check no key accept any text. */
  readonly apiKey: string;
  /** The server's model id, e.g. `gpt-4.1-mini` or `llama3.2`. */
  readonly model: string;
  /**
   * The model's context window in tokens. Default: none, since a compatible server may serve
   * any model; without it automatic compaction needs `contextBudget.contextWindow`.
   */
  readonly contextWindow?: number;
  /** Extra headers sent with every request (printable ASCII). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Further attempts after a retryable failure (429, 503, other 5xx, a broken connection),
   * only while nothing has been streamed. Default 2, at most 10.
   */
  readonly maxRetries?: number;
  /** Prices for `usage.costUsd`. Default: no cost is reported. */
  readonly pricing?: ModelPricing;
  /** Longest answer in tokens. Default: the server's own limit (nothing is sent). */
  readonly maxOutputTokens?: number;
  /**
   * The request field carrying `maxOutputTokens`. Default `max_tokens`, which most compatible
   * servers read; OpenAI's reasoning models require `max_completion_tokens`.
   */
  readonly maxTokensField?: "max_tokens" | "max_completion_tokens";
}

/**
 * A model on any server speaking OpenAI's Chat Completions API (vLLM, Ollama, LM Studio,
 * llama.cpp, OpenAI itself, gateways), streamed through the official `openai` SDK. Creating it
 * connects to nothing. Provider-hosted tools (e.g. web search) are refused with
 * `model_unsupported`; images in tool results are sent as a labelled user message after the
 * tool replies, so the model must accept image input. Reasoning text (`reasoning`,
 * `reasoning_content`) streams as thinking; structured `reasoning_details` are kept as a
 * provider block and sent back on their assistant message (see reasoning-details.ts).
 */
export function openaiCompatible(options: OpenAICompatibleOptions): ModelBinding {
  const where = "openaiCompatible";
  const apiKey = requireText(options?.apiKey, where, "apiKey");
  const baseURL = requireHttpUrl(options.baseURL, where, "baseURL");
  const model = requireText(options.model, where, "model");
  const { contextWindow, maxRetries, maxOutputTokens, pricing } = chatCallSettings(options, where);
  const maxTokensField = options.maxTokensField ?? "max_tokens";
  if (maxTokensField !== "max_tokens" && maxTokensField !== "max_completion_tokens") {
    throw new DeclarationError(`${where}: maxTokensField must be "max_tokens" or "max_completion_tokens".`);
  }
  const client = createChatClient({ apiKey, baseURL, headers: checkHeaders(options.headers, where) });
  return Object.freeze({
    specifier: `openai-compatible/${model}`,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    stream: compatibleStream({
      context: { provider: "openai-compatible", label: `the model server at ${new URL(baseURL).host}`, secret: apiKey },
      client,
      request: { model, maxOutputTokens, maxTokensField },
      maxRetries,
      pricing: () => pricing,
    }),
  });
}
