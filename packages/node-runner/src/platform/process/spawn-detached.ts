import type { Readable } from "node:stream";
import { brokeredSpawn, spawnBrokerAvailable } from "./broker/client.js";
import { readNamespaceReport, stdioWithReport } from "./namespace-init.js";

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
  /**
   * With `pidNamespaceReportFd`: resolves with the pid reported on that descriptor, or with
   * undefined once it closed without one (or the process never started). Never rejects.
   */
  readonly namespaceInit?: Promise<number | undefined>;
}

/** Options of {@link spawnDetached}. */
export interface SpawnDetachedOptions {
  /** The working directory, absolute. */
  readonly cwd: string;
  /** The whole environment; nothing of this process's is added. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * A descriptor, 3 to 8, opened as a pipe whose first `"child-pid": N` names a PID
   * namespace's init (bubblewrap's `--info-fd`); read into `namespaceInit`. Default: none
   * (the process gets only stdin, stdout and stderr).
   */
  readonly pidNamespaceReportFd?: number;
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
  options: SpawnDetachedOptions,
): DetachedProcess {
  if (process.platform !== "win32" && spawnBrokerAvailable()) return brokeredSpawn(executable, args, options);
  const reportFd = options.pidNamespaceReportFd;
  const child = process.getBuiltinModule("node:child_process").spawn(executable, [...args], {
    cwd: options.cwd,
    env: { ...options.env },
    detached: true,
    stdio: stdioWithReport(reportFd),
  });
  if (reportFd === undefined) return child;
  return Object.assign(child, { namespaceInit: readNamespaceReport(child.stdio[reportFd] as Readable | null) });
}
