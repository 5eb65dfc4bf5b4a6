import type { ModelBinding } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { codex } from "@castellan/models/codex";
import { openaiCompatible } from "@castellan/models/openai-compatible";
import { openrouter } from "@castellan/models/openrouter";

/** The `model` field of a job body. */
export interface BodyModel {
  readonly provider: "openai-compatible" | "anthropic" | "openrouter" | "codex";
  readonly baseURL?: string;
  readonly token: string;
  readonly id: string;
}

/** What a model factory is told about the pass it binds for. */
export interface PassInfo {
  /** `initial`, `resume-<n>`, `reproduction-repair-<n>` or `validation-repair-<n>`. */
  readonly name: string;
  /** The body asked for `<baseURL>/phase/<pass>` so each pass's spend is told apart. */
  readonly proxyPhasePath: boolean;
}

/** Binds a job's model for one pass. The server's default uses `@castellan/models`; tests pass a scripted model. */
export type ModelFactory = (model: BodyModel, pass: PassInfo) => ModelBinding;

/** The base URL a pass binds: with `proxyPhasePath`, `<baseURL>/phase/<pass>`. */
export function passBaseUrl(model: BodyModel, pass: PassInfo): string | undefined {
  if (model.baseURL === undefined) return undefined;
  if (!pass.proxyPhasePath) return model.baseURL;
  return `${model.baseURL.replace(/\/+$/, "")}/phase/${encodeURIComponent(pass.name)}`;
}

/** The default factory: the body's provider binding, its token as the key. */
export const defaultModelFactory: ModelFactory = (model, pass) => {
  const baseURL = passBaseUrl(model, pass);
  switch (model.provider) {
    case "openai-compatible":
      return openaiCompatible({ baseURL: baseURL as string, apiKey: model.token, model: model.id });
    case "anthropic":
      return anthropic({ apiKey: model.token, model: model.id, ...(baseURL ? { baseURL } : {}) });
    case "openrouter":
      return openrouter({ apiKey: model.token, model: model.id, ...(baseURL ? { baseURL } : {}) });
    case "codex":
      return codex({ apiKey: model.token, model: model.id, ...(baseURL ? { baseURL } : {}) });
  }
};
