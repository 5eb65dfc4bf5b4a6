// The adapters under test, each bound to the fixture server, with the wire format it speaks.
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import Anthropic from "@anthropic-ai/sdk";
import type { ModelBinding } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { anthropic } from "@castellan/models/anthropic";
import { codex } from "@castellan/models/codex";
import { openaiCompatible } from "@castellan/models/openai-compatible";
import { openrouter } from "@castellan/models/openrouter";
import OpenAI from "openai";
import type { WireFormat } from "./answers.ts";
import type { WireSender } from "./bare-loop.ts";

/** A fake key; the fixture never checks it. */
export const benchKey = "sk-bench-FAKE-not-a-key";

export type AdapterName = "anthropic" | "openai-compatible" | "openrouter" | "codex" | "ai-sdk";

export interface AdapterSpec {
  readonly name: AdapterName;
  readonly format: WireFormat;
  /** The model id sent in requests. */
  readonly model: string;
  /** A binding whose requests go to the fixture at `url` (its root). */
  bind(url: string): ModelBinding;
  /**
   * The request path of the official SDK the adapter is built on, sending the bare loop's
   * request value to the fixture at `url`: the least any adapter on that SDK pays. None for the
   * AI SDK adapter, whose "adapter alone" loop is already that SDK's own request path.
   */
  readonly sdk?: (url: string) => WireSender;
  /**
   * For the AI SDK adapter: the AI SDK language model it wraps, bound to the fixture at `url`.
   * Its floor is a hand-written loop calling that model's `doStream` directly.
   */
  readonly languageModel?: (url: string) => LanguageModelV4;
}

/** The Anthropic SDK's streaming Messages request, its raw response unread. */
const anthropicSdk = (url: string): WireSender => {
  const client = new Anthropic({ apiKey: benchKey, baseURL: url, maxRetries: 0 });
  return (params) => client.messages.create(params as never).asResponse();
};

/** The OpenAI SDK's streaming Chat Completions request, its raw response unread. */
const chatSdk = (url: string): WireSender => {
  const client = new OpenAI({ apiKey: benchKey, baseURL: `${url}/v1`, maxRetries: 0 });
  return (params) => client.chat.completions.create(params as never).asResponse();
};

/** The OpenAI SDK's streaming Responses request, its raw response unread. */
const responsesSdk = (url: string): WireSender => {
  const client = new OpenAI({ apiKey: benchKey, baseURL: `${url}/v1`, maxRetries: 0 });
  return (params) => client.responses.create(params as never).asResponse();
};

const catalogEntry = {
  id: "bench/model",
  name: "Bench model",
  contextLength: 1_000_000,
  tools: true,
  imageInput: false,
  pricing: undefined,
} as const;

/** The AI SDK's OpenAI chat model on the fixture. */
const aiSdkChat = (url: string): LanguageModelV4 =>
  createOpenAI({ apiKey: benchKey, baseURL: `${url}/v1` }).chat("gpt-bench") as LanguageModelV4;

/** Every adapter, each with default options apart from the endpoint and key. */
export const adapters: readonly AdapterSpec[] = [
  {
    name: "anthropic",
    format: "anthropic",
    model: "claude-bench",
    bind: (url) => anthropic({ apiKey: benchKey, model: "claude-bench", baseURL: url }),
    sdk: anthropicSdk,
  },
  {
    name: "openai-compatible",
    format: "chat",
    model: "bench-model",
    bind: (url) => openaiCompatible({ apiKey: benchKey, model: "bench-model", baseURL: `${url}/v1` }),
    sdk: chatSdk,
  },
  {
    name: "openrouter",
    format: "chat",
    model: catalogEntry.id,
    // The catalog entry is supplied, so the binding never reads the catalog.
    bind: (url) => openrouter({ apiKey: benchKey, model: catalogEntry.id, baseURL: `${url}/v1`, catalogEntry }),
    sdk: chatSdk,
  },
  {
    name: "codex",
    format: "responses",
    model: "gpt-bench",
    bind: (url) => codex({ apiKey: benchKey, model: "gpt-bench", baseURL: `${url}/v1` }),
    sdk: responsesSdk,
  },
  {
    name: "ai-sdk",
    format: "chat",
    model: "gpt-bench",
    bind: (url) => aiSdk(aiSdkChat(url)),
    languageModel: aiSdkChat,
  },
];
