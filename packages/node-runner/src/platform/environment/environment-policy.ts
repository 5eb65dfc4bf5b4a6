import { EnvironmentPolicyError } from "./policy-error.js";

/**
 * Which variables of the host's environment a command gets. Applied in this order: `inherit`,
 * then the built-in secret filter (names containing `KEY`, `SECRET` or `TOKEN`, in any case),
 * then `exclude`, then `set`, then `includeOnly`. Names under `CASTELLAN_`, `ANTHROPIC_`,
 * `OPENAI_`, `OPENROUTER_` and `CODEX_` are never passed, whatever the policy says.
 */
export interface EnvironmentPolicy {
  /**
   * `all`: every variable of the host; `core`: `SHELL`, `PATH`, `HOME`, `TMPDIR`, `TMP`, `TEMP`,
   * `LANG`, `LANGUAGE`, `LC_*`, `USER` and `LOGNAME`; `none`: nothing.
   */
  readonly inherit: "all" | "core" | "none";
  /** Names to drop, as case-insensitive globs (`*` any run, `?` one character). Default none. */
  readonly exclude?: readonly string[];
  /** Variables to set, after the filters (a secret set here is passed on purpose). Default none. */
  readonly set?: Readonly<Record<string, string>>;
  /** When given, only names matching one of these case-insensitive globs are kept, set ones included. */
  readonly includeOnly?: readonly string[];
}

/** A policy checked and frozen by {@link resolveEnvironmentPolicy}. */
export interface ResolvedEnvironmentPolicy {
  readonly policy: EnvironmentPolicy;
  /** The environment for a command, from `base` (default: the host's `process.env` now). */
  environmentFor(base?: NodeJS.ProcessEnv): Record<string, string>;
}

const coreNames = new Set(["SHELL", "PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "USER", "LOGNAME"]);
const neverPassed = ["CASTELLAN_", "ANTHROPIC_", "OPENAI_", "OPENROUTER_", "CODEX_"];
const secretWords = ["KEY", "SECRET", "TOKEN"];
const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
const policyKeys = new Set(["inherit", "exclude", "set", "includeOnly"]);

/** True for a name no command is given (a provider credential or Castellan's own setting). */
export function isNeverPassed(name: string): boolean {
  const upper = name.toUpperCase();
  return neverPassed.some((prefix) => upper.startsWith(prefix));
}

/**
 * Checks a policy and freezes a copy of it. The policy itself is never stored in history; the
 * environment is computed from the host's at each spawn.
 *
 * @throws EnvironmentPolicyError (`environment_invalid`) for an unknown field, a bad `inherit`,
 * a glob that is not a string, a `set` name that is not a variable name or a value that is not
 * a string, or a `set` of a name that is never passed.
 */
export function resolveEnvironmentPolicy(policy: EnvironmentPolicy, where: string): ResolvedEnvironmentPolicy {
  if (policy === null || typeof policy !== "object" || Array.isArray(policy)) {
    throw new EnvironmentPolicyError(`${where}: environment must be { inherit, exclude?, set?, includeOnly? }.`);
  }
  for (const key of Object.keys(policy)) {
    if (!policyKeys.has(key)) throw new EnvironmentPolicyError(`${where}: environment.${key} is not a policy field.`);
  }
  if (policy.inherit !== "all" && policy.inherit !== "core" && policy.inherit !== "none") {
    throw new EnvironmentPolicyError(`${where}: environment.inherit must be "all", "core" or "none".`);
  }
  const exclude = globs(policy.exclude, `${where}: environment.exclude`);
  const includeOnly =
    policy.includeOnly === undefined ? undefined : globs(policy.includeOnly, `${where}: environment.includeOnly`);
  const set: Record<string, string> = {};
  for (const [name, value] of Object.entries(policy.set ?? {})) {
    if (!namePattern.test(name))
      throw new EnvironmentPolicyError(
        `${where}: environment.set names ${JSON.stringify(name)}, which is not a variable name.`,
      );
    if (typeof value !== "string")
      throw new EnvironmentPolicyError(`${where}: environment.set.${name} must be a string.`);
    if (isNeverPassed(name)) {
      throw new EnvironmentPolicyError(
        `${where}: environment.set.${name} cannot be passed to commands: names under ${neverPassed.join(", ")} never are.`,
      );
    }
    set[name] = value;
  }
  const frozen: EnvironmentPolicy = Object.freeze({
    inherit: policy.inherit,
    ...(policy.exclude ? { exclude: Object.freeze([...policy.exclude]) } : {}),
    ...(policy.set ? { set: Object.freeze({ ...set }) } : {}),
    ...(policy.includeOnly ? { includeOnly: Object.freeze([...policy.includeOnly]) } : {}),
  });
  return Object.freeze({
    policy: frozen,
    environmentFor(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
      const environment: Record<string, string> = {};
      if (frozen.inherit !== "none") {
        for (const [name, value] of Object.entries(base)) {
          if (value === undefined) continue;
          if (frozen.inherit === "core" && !coreNames.has(name) && !name.startsWith("LC_")) continue;
          environment[name] = value;
        }
      }
      for (const name of Object.keys(environment)) {
        const upper = name.toUpperCase();
        if (secretWords.some((word) => upper.includes(word)) || exclude.some((matches) => matches(name))) {
          delete environment[name];
        }
      }
      Object.assign(environment, set);
      for (const name of Object.keys(environment)) {
        if (isNeverPassed(name) || (includeOnly && !includeOnly.some((matches) => matches(name)))) {
          delete environment[name];
        }
      }
      return environment;
    },
  });
}

function globs(patterns: readonly string[] | undefined, where: string): ((name: string) => boolean)[] {
  if (patterns === undefined) return [];
  if (!Array.isArray(patterns) || !patterns.every((pattern) => typeof pattern === "string" && pattern !== "")) {
    throw new EnvironmentPolicyError(`${where} must be a list of non-empty name globs.`);
  }
  // `*` and `?` are the only wildcards; every other character stands for itself.
  return patterns.map((pattern) => {
    const source = pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".");
    const expression = new RegExp(`^${source}$`, "i");
    return (name: string) => expression.test(name);
  });
}
