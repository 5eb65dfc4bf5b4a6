// The adapters under test, each bound to the fixture server, with the wire format it speaks.
import { createOpenAI } from "@ai-sdk/openai";
import type { ModelBinding } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { anthropic } from "@castellan/models/anthropic";
import { codex } from "@castellan/models/codex";
import { openaiCompatible } from "@castellan/models/openai-compatible";
import { openrouter } from "@castellan/models/openrouter";
import type { WireFormat } from "./answers.ts";

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
}

const catalogEntry = {
  id: "bench/model",
  name: "Bench model",
  contextLength: 1_000_000,
  tools: true,
  imageInput: false,
  pricing: undefined,
} as const;

/** Every adapter, each with default options apart from the endpoint and key. */
export const adapters: readonly AdapterSpec[] = [
  {
    name: "anthropic",
    format: "anthropic",
    model: "claude-bench",
    bind: (url) => anthropic({ apiKey: benchKey, model: "claude-bench", baseURL: url }),
  },
  {
    name: "openai-compatible",
    format: "chat",
    model: "bench-model",
    bind: (url) => openaiCompatible({ apiKey: benchKey, model: "bench-model", baseURL: `${url}/v1` }),
  },
  {
    name: "openrouter",
    format: "chat",
    model: catalogEntry.id,
    // The catalog entry is supplied, so the binding never reads the catalog.
    bind: (url) => openrouter({ apiKey: benchKey, model: catalogEntry.id, baseURL: `${url}/v1`, catalogEntry }),
  },
  {
    name: "codex",
    format: "responses",
    model: "gpt-bench",
    bind: (url) => codex({ apiKey: benchKey, model: "gpt-bench", baseURL: `${url}/v1` }),
  },
  {
    name: "ai-sdk",
    format: "chat",
    model: "gpt-bench",
    bind: (url) => aiSdk(createOpenAI({ apiKey: benchKey, baseURL: `${url}/v1` }).chat("gpt-bench")),
  },
];
