// HostedToolSpec → the AI SDK's provider tools (`{ type: "provider", id, name, args }`).
//
// Built in: `web-search` on OpenAI Responses models (provider `openai.responses`) becomes
// `openai.web_search`. Any provider tool can be named directly with `{ kind: "ai-sdk", id,
// args }`, or a kind can be mapped for a binding with the `providerTools` option. Anything else
// fails the call with `model_unsupported` before a request is sent.
import type { LanguageModelV4ProviderTool, SharedV4Warning } from "@ai-sdk/provider";
import { type HostedToolSpec, ModelProviderError } from "@castellan/harness";
import { ERROR_PROVIDER } from "./errors.js";

/** The provider tool a hosted tool kind stands for on one binding. */
export interface AiSdkProviderToolMapping {
  /** The provider tool's id, `<provider>.<tool>`, e.g. `anthropic.web_search_20250305`. */
  readonly id: `${string}.${string}`;
  /** Arguments of the provider tool; the hosted spec's own options (other than `kind`) override them. */
  readonly args?: Readonly<Record<string, unknown>>;
}

/** The hosted kind that names an AI SDK provider tool directly: `{ kind: "ai-sdk", id, args? }`. */
export const DIRECT_KIND = "ai-sdk";

/** Kind → model provider (`LanguageModelV4.provider`) → provider tool id, for tools verified against the SDK. */
const BUILT_IN: Readonly<Record<string, Readonly<Record<string, `${string}.${string}`>>>> = {
  "web-search": { "openai.responses": "openai.web_search" },
};

/** The provider tools of a request's hosted tools, or the `model_unsupported` error for the first it cannot map. */
export function toProviderTools(
  hosted: readonly HostedToolSpec[],
  modelProvider: string,
  mappings: Readonly<Record<string, AiSdkProviderToolMapping>> | undefined,
  specifier: string,
): LanguageModelV4ProviderTool[] | ModelProviderError {
  const tools: LanguageModelV4ProviderTool[] = [];
  for (const spec of hosted) {
    const { kind, ...options } = spec.hosted;
    if (kind === DIRECT_KIND) {
      const { id, args } = options;
      if (!isToolId(id) || (args !== undefined && !isRecord(args))) {
        return unsupported(
          `${specifier}: hosted tool "${spec.name}" needs { kind: "ai-sdk", id: "<provider>.<tool>", args?: {...} }.`,
        );
      }
      tools.push({ type: "provider", id, name: spec.name, args: { ...(args ?? {}) } });
      continue;
    }
    const mapping = Object.hasOwn(mappings ?? {}, kind) ? mappings?.[kind] : undefined;
    const id = mapping?.id ?? BUILT_IN[kind]?.[modelProvider];
    if (id === undefined) {
      return unsupported(
        `${specifier} cannot serve hosted tool "${spec.name}" (kind "${kind}"): map the kind to one of the provider's tools with aiSdk(model, { providerTools: { "${kind}": { id: "<provider>.<tool>" } } }).`,
      );
    }
    tools.push({ type: "provider", id, name: spec.name, args: { ...(mapping?.args ?? {}), ...options } });
  }
  return tools;
}

/**
 * The `model_unsupported` error when the model's stream-start warnings say a provider tool it
 * was sent is unsupported (e.g. OpenAI's chat model: "tool type: provider"), else undefined.
 */
export function unsupportedHostedTool(
  warnings: readonly SharedV4Warning[] | undefined,
  providerTools: readonly LanguageModelV4ProviderTool[],
  specifier: string,
): ModelProviderError | undefined {
  for (const warning of warnings ?? []) {
    if (warning.type !== "unsupported") continue;
    const tool = providerTools.find(
      (candidate) => warning.feature.includes(candidate.id) || warning.feature === "tool type: provider",
    );
    if (tool !== undefined)
      return unsupported(`${specifier} does not support hosted tool "${tool.name}" (${tool.id}).`);
  }
  return undefined;
}

function unsupported(message: string): ModelProviderError {
  return new ModelProviderError("model_unsupported", message, { provider: ERROR_PROVIDER, retryable: false });
}

function isToolId(value: unknown): value is `${string}.${string}` {
  return typeof value === "string" && /^[^.]+\..+$/.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
