/** The providers `castellan` can bind `coding/primary` to, in the order it looks for a key. */
export type ProviderName = "anthropic" | "codex" | "openai" | "openrouter";

/** One provider's environment variables and defaults. */
export interface ProviderEntry {
  readonly name: ProviderName;
  /** The variable holding its key or token; its value is never printed, logged or saved. */
  readonly keyVariable: string;
  /** The variable naming its model. */
  readonly modelVariable: string;
  /** The model when the variable is unset; undefined where the variable is required. */
  readonly defaultModel: string | undefined;
  /** The variable overriding its API root (https:, or http: on loopback only). */
  readonly baseUrlVariable: string;
  /** The API root when that variable is unset; undefined for the adapter's own default. */
  readonly defaultBaseUrl: string | undefined;
}

/** The table of item 3, in lookup order: the first provider whose key is set is used. */
export const providerTable: readonly ProviderEntry[] = Object.freeze([
  {
    name: "anthropic",
    keyVariable: "ANTHROPIC_API_KEY",
    modelVariable: "CASTELLAN_ANTHROPIC_MODEL",
    defaultModel: "claude-sonnet-4-5",
    baseUrlVariable: "CASTELLAN_ANTHROPIC_BASE_URL",
    defaultBaseUrl: undefined,
  },
  {
    name: "codex",
    keyVariable: "CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN",
    modelVariable: "CASTELLAN_OPENAI_CODEX_MODEL",
    defaultModel: "gpt-5-codex",
    baseUrlVariable: "CASTELLAN_OPENAI_CODEX_BASE_URL",
    defaultBaseUrl: undefined,
  },
  {
    name: "openai",
    keyVariable: "OPENAI_API_KEY",
    modelVariable: "CASTELLAN_OPENAI_MODEL",
    defaultModel: undefined,
    baseUrlVariable: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
  },
  {
    name: "openrouter",
    keyVariable: "OPENROUTER_API_KEY",
    modelVariable: "OPENROUTER_MODEL",
    defaultModel: undefined,
    baseUrlVariable: "OPENROUTER_BASE_URL",
    defaultBaseUrl: undefined,
  },
] satisfies ProviderEntry[]);

/** Every key variable of the table, for scrubbing and for the doctor. */
export const keyVariables: readonly string[] = Object.freeze(providerTable.map((entry) => entry.keyVariable));
