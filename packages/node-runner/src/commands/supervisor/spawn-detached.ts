import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { brokeredSpawn, spawnBrokerAvailable } from "./broker/client.js";

/** A started process as the supervisor uses it: a `ChildProcess`, or a command the spawn broker started. */
export interface DetachedProcess {
  /** Set once it started (the `spawn` event). */
  readonly pid?: number | undefined;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  once(event: "spawn", listener: () => void): unknown;
  once(event: "error", listener: (error: Error) => void): unknown;
  once(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Starts `executable` with `args` detached (the leader of a new process group, whose id is its
 * pid), stdin from /dev/null, stdout and stderr piped to this process, exactly `env` and `cwd`.
 *
 * Through the spawn broker where it is built (a small helper process, one per host, started on
 * first use): a fork copies the forking process's page tables, so forking from a host of a few
 * hundred MiB blocks its thread for tens of milliseconds per command; from the broker it takes
 * about one and blocks nothing here. Without the compiled broker (a source checkout never
 * built), or on Windows, `child_process.spawn` directly. Signal the group with
 * `process.kill(-pid, signal)`; a host that dies takes the broker's commands with it.
 */
export function spawnDetached(
  executable: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
): DetachedProcess {
  if (process.platform !== "win32" && spawnBrokerAvailable()) return brokeredSpawn(executable, args, options);
  return spawn(executable, [...args], {
    cwd: options.cwd,
    env: { ...options.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
}
