import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { SandboxUnavailableError } from "./errors.js";

/** The programs the sandbox needs, each a name looked up in `PATH` or an absolute path. */
export interface SandboxDependencies {
  readonly bwrap: string;
  readonly socat: string;
  readonly rg: string;
}

/** The defaults: `bwrap`, `socat` and `rg` from the host's `PATH`. */
export const defaultSandboxDependencies: SandboxDependencies = Object.freeze({
  bwrap: "bwrap",
  socat: "socat",
  rg: "rg",
});

/** The absolute path of an executable file `name` (a path, or a name in `pathEnv`), or undefined. */
export function findExecutable(name: string, pathEnv = process.env.PATH ?? ""): string | undefined {
  const candidates = name.includes("/") ? [name] : pathEnv.split(delimiter).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    if (!isAbsolute(candidate)) continue;
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * The absolute path of each dependency. Linux only.
 *
 * @throws SandboxUnavailableError (`sandbox_unavailable`) naming every one that is missing, or the platform.
 */
export function checkSandboxDependencies(
  dependencies: SandboxDependencies = defaultSandboxDependencies,
  pathEnv = process.env.PATH ?? "",
  platform: NodeJS.Platform = process.platform,
): SandboxDependencies {
  if (platform !== "linux") {
    throw new SandboxUnavailableError(
      `The sandbox runs on Linux only (bubblewrap and seccomp); this is ${platform}. Nothing runs unsandboxed instead.`,
      [],
    );
  }
  const found: Partial<Record<keyof SandboxDependencies, string>> = {};
  const missing: string[] = [];
  for (const key of ["bwrap", "socat", "rg"] as const) {
    const path = findExecutable(dependencies[key], pathEnv);
    if (path === undefined) missing.push(dependencies[key] === key ? key : `${key} (${dependencies[key]})`);
    else found[key] = path;
  }
  if (missing.length > 0) {
    throw new SandboxUnavailableError(
      `The sandbox needs ${missing.join(", ")}, not found${missing.some((name) => !name.includes("/")) ? " in PATH" : ""}. Nothing runs unsandboxed instead.`,
      missing,
    );
  }
  return Object.freeze(found as SandboxDependencies);
}
