// How each conformance driver makes its binding, in a module a child process can load too
// (the restart scenario): it imports only published subpaths and the AI SDK provider.
import { createOpenAI } from "@ai-sdk/openai";
import type { ModelBinding } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { anthropic } from "@castellan/models/anthropic";
import { codex } from "@castellan/models/codex";
import { openaiCompatible } from "@castellan/models/openai-compatible";
import { openrouter } from "@castellan/models/openrouter";
import type { BindOptions } from "./driver.ts";

/** The model ids the fixtures serve. */
export const MODELS = {
  anthropic: "claude-test-1",
  "openai-compatible": "fixture-model",
  openrouter: "acme/vision-pro",
  codex: "gpt-5-codex",
  "ai-sdk": "gpt-5-mini",
  "ai-sdk-chat": "gpt-4o-mini",
} as const;

/** A driver's name. */
export type DriverName = keyof typeof MODELS;

/** Makes driver `name`'s binding against the fixture at `url` with `key`. */
export function bind(name: DriverName, url: string, key: string, options: BindOptions = {}): ModelBinding {
  const common = { maxRetries: options.maxRetries ?? 0, ...(options.pricing ? { pricing: options.pricing } : {}) };
  switch (name) {
    case "anthropic":
      return anthropic({ apiKey: key, model: options.model ?? MODELS.anthropic, baseURL: url, ...common });
    case "openai-compatible":
      return openaiCompatible({
        apiKey: key,
        model: options.model ?? MODELS["openai-compatible"],
        baseURL: `${url}/v1`,
        ...common,
      });
    case "openrouter": {
      const model = options.model ?? MODELS.openrouter;
      return openrouter({
        apiKey: key,
        model,
        baseURL: `${url}/api/v1`,
        ...common,
        // The served model's entry, as an application that read the catalog passes it: no
        // catalog request to answer in every scenario. Another id reads the catalog.
        ...(model === MODELS.openrouter
          ? {
              catalogEntry: {
                id: model,
                name: "Acme: Vision Pro",
                contextLength: 200_000,
                tools: true,
                imageInput: true,
                pricing: undefined,
              },
            }
          : {}),
      });
    }
    case "codex":
      return codex({ apiKey: key, model: options.model ?? MODELS.codex, baseURL: url, ...common });
    case "ai-sdk":
      return aiSdk(createOpenAI({ apiKey: key, baseURL: url }).responses(options.model ?? MODELS["ai-sdk"]), {
        ...common,
        // Reasoning comes back encrypted and is kept, as with store: false on any Responses client.
        providerOptions: { openai: { store: false, include: ["reasoning.encrypted_content"] } },
      });
    case "ai-sdk-chat":
      return aiSdk(createOpenAI({ apiKey: key, baseURL: url }).chat(options.model ?? MODELS["ai-sdk-chat"]), common);
  }
}
