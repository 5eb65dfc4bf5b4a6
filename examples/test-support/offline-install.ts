// Installs a consumer project exactly as its lockfile says, from npm's cache alone: `npm ci --offline`
// never contacts a registry. When it fails, the error names each locked package the cache lacks.
import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Lockfile, nameAt } from "./consumer-lockfile.ts";

const exec = promisify(execFile);

/** The npm command on this platform. */
export const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * Runs `npm ci --offline` in `directory`, whose package-lock.json is `lockfile`. On failure, throws an
 * error naming every `name@version` of the lockfile whose tarball is not in npm's cache, or npm's own error
 * when none is missing. `env` is npm's environment; default this process's.
 */
export async function installOffline(
  directory: string,
  lockfile: Lockfile,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  try {
    await exec(npm, ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel", "error"], { cwd: directory, env });
  } catch (error) {
    const { stdout } = await exec(npm, ["config", "get", "cache"], { cwd: directory, env });
    const cache = stdout.trim();
    const missing = await missingFromCache(lockfile, cache);
    if (missing.length === 0) throw error;
    throw new Error(
      `npm's cache (${cache}) has no tarball for ${missing.join(", ")}: ` +
        "run `npm ci` at the workspace root with this cache, then try again",
      { cause: error },
    );
  }
}

/**
 * The `name@version` of each registry package in `lockfile` whose tarball npm's cache at `cache` does not
 * hold. npm keeps tarballs by integrity, under `_cacache/content-v2/<algorithm>/<hex digest split 2/2/rest>`;
 * tarballs installed from files, links and the project's own entries are not looked for.
 */
export async function missingFromCache(lockfile: Lockfile, cache: string): Promise<string[]> {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lockfile.packages)) {
    if (!path.includes("node_modules/") || entry.link || entry.resolved?.startsWith("file:")) continue;
    const name = entry.name ?? nameAt(path);
    const found = await Promise.all(
      (entry.integrity ?? "")
        .split(/\s+/)
        .filter(Boolean)
        .map((hash) => inCache(cache, hash)),
    );
    if (!found.includes(true)) missing.push(`${name}@${entry.version}`);
  }
  return missing;
}

/** Whether the cache holds content with the integrity `hash` (`<algorithm>-<base64 digest>`). */
async function inCache(cache: string, hash: string): Promise<boolean> {
  const split = hash.indexOf("-");
  const algorithm = hash.slice(0, split);
  const hex = Buffer.from(hash.slice(split + 1), "base64").toString("hex");
  try {
    await access(join(cache, "_cacache", "content-v2", algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4)));
    return true;
  } catch {
    return false;
  }
}
