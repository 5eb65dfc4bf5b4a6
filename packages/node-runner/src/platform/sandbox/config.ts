import { isAbsolute, join, normalize } from "node:path";
import { SandboxConfigError } from "./errors.js";

/** Which hosts a sandboxed command may reach through the runtime's proxy. */
export interface SandboxNetworkPolicy {
  /** Domain patterns (`example.com`, `*.example.com`) that are allowed; empty means no network. */
  readonly allowedDomains: readonly string[];
  /** Domain patterns that are denied even when allowed. */
  readonly deniedDomains: readonly string[];
}

/** Paths are absolute, or `~` / `~/...` (the host's `HOME`); relative paths are refused. */
export interface SandboxFilesystemPolicy {
  /** Paths that may not be read (reads are allowed elsewhere by default). */
  readonly denyRead?: readonly string[];
  /** Paths inside a `denyRead` region that may be read again. */
  readonly allowRead?: readonly string[];
  /** The only paths that may be written (besides the runtime's own temporary paths). */
  readonly allowWrite?: readonly string[];
  /** Paths inside `allowWrite` that may not be written. */
  readonly denyWrite?: readonly string[];
}

/** The explicit sandbox policy: nothing comes from the working directory or from approvals. */
export interface SandboxPolicyConfig {
  readonly network: SandboxNetworkPolicy;
  readonly filesystem?: SandboxFilesystemPolicy;
}

/** The policy checked, every path absolute. */
export interface ResolvedSandboxPolicy {
  readonly network: { readonly allowedDomains: readonly string[]; readonly deniedDomains: readonly string[] };
  readonly filesystem: {
    readonly denyRead: readonly string[];
    readonly allowRead: readonly string[];
    readonly allowWrite: readonly string[];
    readonly denyWrite: readonly string[];
  };
}

const defaultWhere = "createSandboxRuntimeCommandSessionPlugin: sandbox.config";
const pathLists = ["denyRead", "allowRead", "allowWrite", "denyWrite"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function strings(value: unknown, field: string, where: string): readonly string[] {
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string" && entry !== "")) {
    throw new SandboxConfigError(`${where}.${field} must be an array of non-empty strings.`);
  }
  return value as string[];
}

function onlyKeys(value: Record<string, unknown>, field: string, keys: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      throw new SandboxConfigError(`${where}${field}: ${key} is not a key; the keys are ${keys.join(", ")}.`);
    }
  }
}

/** An absolute path for `entry`: `~` is `home`; anything relative is refused. */
function absolutePath(entry: string, field: string, home: string | undefined, where: string): string {
  if (entry === "~" || entry.startsWith("~/")) {
    if (home === undefined || !isAbsolute(home)) {
      throw new SandboxConfigError(
        `${where}.${field}: ${JSON.stringify(entry)} needs HOME, which is not an absolute path here.`,
      );
    }
    return normalize(join(home, entry.slice(1)));
  }
  if (!isAbsolute(entry)) {
    throw new SandboxConfigError(
      `${where}.${field}: ${JSON.stringify(entry)} is a relative path; give an absolute path or one under ~ (the host's HOME). Nothing is taken from the working directory.`,
    );
  }
  return normalize(entry);
}

/**
 * Checks the policy and makes every path absolute (`~` from `home`, the host's `HOME`).
 *
 * @throws SandboxConfigError (`sandbox_config_invalid`) for a missing, unknown or malformed key, or a relative path.
 */
export function resolveSandboxPolicy(
  config: SandboxPolicyConfig,
  home = process.env.HOME,
  where = defaultWhere,
): ResolvedSandboxPolicy {
  if (!isRecord(config)) throw new SandboxConfigError(`${where} is required: { network, filesystem? }.`);
  onlyKeys(config, "", ["network", "filesystem"], where);
  const network = config.network as unknown;
  if (!isRecord(network)) {
    throw new SandboxConfigError(`${where}.network is required: { allowedDomains, deniedDomains }.`);
  }
  onlyKeys(network, ".network", ["allowedDomains", "deniedDomains"], where);
  const filesystem = (config.filesystem ?? {}) as unknown;
  if (!isRecord(filesystem)) throw new SandboxConfigError(`${where}.filesystem must be an object.`);
  onlyKeys(filesystem, ".filesystem", pathLists, where);
  const paths = Object.fromEntries(
    pathLists.map((name) => {
      const field = `filesystem.${name}`;
      const list = filesystem[name] === undefined ? [] : strings(filesystem[name], field, where);
      return [name, Object.freeze(list.map((entry) => absolutePath(entry, field, home, where)))];
    }),
  ) as Record<(typeof pathLists)[number], readonly string[]>;
  return Object.freeze({
    network: Object.freeze({
      allowedDomains: Object.freeze([...strings(network.allowedDomains, "network.allowedDomains", where)]),
      deniedDomains: Object.freeze([...strings(network.deniedDomains, "network.deniedDomains", where)]),
    }),
    filesystem: Object.freeze(paths),
  });
}
