import { execFile } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Runs `script` in a new Node process with `env` added, leaving out inherited variables starting with `dropPrefix`. */
export function runNode(script: string, args: readonly string[], env: Record<string, string>, dropPrefix?: string) {
  const inherited = Object.entries(process.env).filter(
    ([name]) => dropPrefix === undefined || !name.startsWith(dropPrefix),
  );
  return exec(process.execPath, [script, ...args], { env: { ...Object.fromEntries(inherited), ...env } });
}
