import type { ReasoningEffort } from "openai/resources/shared";
import type { ModelPricing } from "../shared/pricing.js";

/** How a reasoning model reasons, sent as the Responses `reasoning` parameter. */
export interface CodexReasoningOptions {
  /** Default: the model's own default. */
  readonly effort?: Exclude<ReasoningEffort, null>;
  /** Whether and how the model summarizes its reasoning (streamed as thinking). Default: no summary. */
  readonly summary?: "auto" | "concise" | "detailed";
}

/** Options of `codex`. Exactly one of `apiKey` and `accessToken` is required. */
export interface CodexOptions {
  /** An OpenAI API key. Kept inside the binding; never part of events, errors or saved records. */
  readonly apiKey?: string;
  /**
   * A ChatGPT (Codex) OAuth access token, sent as the bearer credential like an API key. With it
   * the default `baseURL` is the ChatGPT Codex backend; headers that backend expects besides the
   * token (such as the account id) go in `headers`.
   */
  readonly accessToken?: string;
  /** The provider's model id, e.g. `gpt-5-codex`. */
  readonly model: string;
  /**
   * Where the Responses API lives (the SDK appends `/responses`). Default
   * `https://api.openai.com/v1` with `apiKey`, `https://chatgpt.com/backend-api/codex` with
   * `accessToken`. Never read from the environment.
   */
  readonly baseURL?: string;
  /**
   * Reasoning settings. Default `{}`: the request asks for encrypted reasoning items (kept as
   * opaque continuation) with the model's default effort. `false` sends no reasoning parameters
   * at all, for models without reasoning, which reject `include: ["reasoning.encrypted_content"]`.
   */
  readonly reasoning?: CodexReasoningOptions | false;
  /** The `max_output_tokens` of every request. Default: unset (the model's own limit). */
  readonly maxOutputTokens?: number;
  /**
   * The model's input window in tokens. Default: the documented window of the model
   * (`codexContextWindow`), or none for an id the table does not know; then automatic
   * compaction needs `contextBudget.contextWindow`.
   */
  readonly contextWindow?: number;
  /**
   * How often a failed call is retried before anything was streamed, for retryable errors only
   * (rate limits, overload, server errors, dropped connections). An integer from 0 to 10; default 2.
   */
  readonly maxRetries?: number;
  /**
   * Prices for `Usage.costUsd`, checked when the binding is made. Default: no cost is reported.
   * Missing cache prices are `inputPerMillion`.
   */
  readonly pricing?: ModelPricing;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The binding's specifier. Default `codex/<model>`. */
  readonly specifier?: string;
}

/** The API-key endpoint. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** The ChatGPT Codex backend, for access tokens. */
export const CHATGPT_CODEX_BASE_URL = "https://chatgpt.com/backend-api/codex";
