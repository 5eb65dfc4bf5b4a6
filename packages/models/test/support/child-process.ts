import { execFile } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Runs `script` in a new Node process with `env` added, leaving out inherited variables starting with `dropPrefix` (one or several). */
export function runNode(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  dropPrefix?: string | readonly string[],
) {
  const prefixes = dropPrefix === undefined ? [] : typeof dropPrefix === "string" ? [dropPrefix] : dropPrefix;
  const inherited = Object.entries(process.env).filter(([name]) => !prefixes.some((prefix) => name.startsWith(prefix)));
  return exec(process.execPath, [script, ...args], { env: { ...Object.fromEntries(inherited), ...env } });
}
