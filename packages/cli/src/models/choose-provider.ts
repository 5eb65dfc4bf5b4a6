import { CliError } from "../process/cli-error.js";
import { type ProviderEntry, type ProviderName, providerTable } from "./provider-table.js";

/** The provider, model and endpoint `coding/primary` is bound to, with the key kept apart. */
export interface ProviderChoice {
  readonly provider: ProviderName;
  /** The provider's model id. */
  readonly model: string;
  /** The checked API root, or undefined for the adapter's default. */
  readonly baseURL: string | undefined;
  /** The key or token. Never printed; callers pass it only to the adapter. */
  readonly key: string;
  /** The specifier shown on the status line: `<provider>/<model>`. */
  readonly label: string;
}

const variableValue = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

/** Whether a URL's host is this machine: 127.0.0.0/8, ::1 or localhost. */
function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** A base-URL variable checked: https:, or http: only to this machine; undefined when unset. */
function checkedBaseUrl(entry: ProviderEntry, env: NodeJS.ProcessEnv): string | undefined {
  const value = variableValue(env, entry.baseUrlVariable);
  if (value === undefined) return entry.defaultBaseUrl;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError("provider_config_invalid", `${entry.baseUrlVariable} is not a URL.`);
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url))) return value.replace(/\/+$/, "");
  throw new CliError(
    "provider_config_invalid",
    `${entry.baseUrlVariable} must be an https: URL, or http: on loopback (127.0.0.0/8, ::1, localhost).`,
  );
}

/** Splits `--model`: `<provider>/<id>` when the prefix names a provider of the table, else a bare id. */
function splitModelFlag(flag: string): { provider: ProviderName | undefined; model: string } {
  const slash = flag.indexOf("/");
  const prefix = slash > 0 ? flag.slice(0, slash) : "";
  const entry = providerTable.find((candidate) => candidate.name === prefix);
  return entry ? { provider: entry.name, model: flag.slice(slash + 1) } : { provider: undefined, model: flag };
}

/**
 * Chooses the model of `coding/primary` from the environment (item 3's table). Without
 * `--model`, the first provider in table order whose key is set; `--model <provider>/<id>` that
 * provider (its key must be set); `--model <id>` the chosen provider with that model. Throws
 * `provider_not_configured` naming the variables when no usable key is set, and
 * `provider_config_invalid` for a bad base URL or a missing required model variable.
 */
export function chooseProvider(env: NodeJS.ProcessEnv, modelFlag?: string): ProviderChoice {
  const flag = modelFlag?.trim();
  if (modelFlag !== undefined && !flag) throw new CliError("provider_config_invalid", "--model needs a model id.");
  const wanted = flag === undefined ? undefined : splitModelFlag(flag);
  if (wanted && wanted.model === "")
    throw new CliError("provider_config_invalid", `--model ${flag} names no model id.`);
  const entry = wanted?.provider
    ? providerTable.find((candidate) => candidate.name === wanted.provider)
    : providerTable.find((candidate) => variableValue(env, candidate.keyVariable) !== undefined);
  const key = entry ? variableValue(env, entry.keyVariable) : undefined;
  if (!entry || key === undefined) {
    const variables = entry ? [entry.keyVariable] : providerTable.map((candidate) => candidate.keyVariable);
    throw new CliError(
      "provider_not_configured",
      `no model provider is configured: set ${variables.join(", ")}${entry ? ` for --model ${flag}` : " (the first one set is used)"}.`,
    );
  }
  const model = wanted?.model ?? variableValue(env, entry.modelVariable) ?? entry.defaultModel;
  if (model === undefined) {
    throw new CliError(
      "provider_config_invalid",
      `${entry.keyVariable} is set but ${entry.modelVariable} is not: set it, or pass --model ${entry.name}/<id>.`,
    );
  }
  return { provider: entry.name, model, baseURL: checkedBaseUrl(entry, env), key, label: `${entry.name}/${model}` };
}
