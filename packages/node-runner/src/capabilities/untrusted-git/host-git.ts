import { gitEnvironment, gitSafetyArguments } from "./safety.js";

/**
 * How one git invocation ended: `exited` with its status and standard output (UTF-8),
 * `overflowed` when its output passed `maxOutputBytes` once it had printed something to
 * standard output (it was killed then, so only "it printed something" is known), `failed` when it could not be started (git missing, the
 * directory gone), was killed on timeout, or died by a signal.
 */
export type GitOutcome =
  | { readonly kind: "exited"; readonly code: number; readonly stdout: string }
  | { readonly kind: "overflowed" }
  | { readonly kind: "failed"; readonly cause: unknown };

/** One git invocation of the probe. */
export interface GitInvocation {
  /** The executable, a command name or an absolute path. */
  readonly git: string;
  readonly cwd: string;
  /** The command and its arguments, after {@link gitSafetyArguments}. */
  readonly args: readonly string[];
  /** Killed with SIGKILL after this many milliseconds. */
  readonly timeoutMs: number;
  /** Filter drivers to neutralize (see git-safety.ts). Default: none. */
  readonly filterDrivers?: readonly string[];
  /** Standard output kept, in bytes; more ends the invocation as `overflowed`. Default 64 KiB. */
  readonly maxOutputBytes?: number;
}

const defaultMaxOutputBytes = 64 * 1024;

/** Runs git without a shell, with the probe's safety options and environment. Never rejects. */
export function runGit(invocation: GitInvocation): Promise<GitOutcome> {
  const maxBuffer = invocation.maxOutputBytes ?? defaultMaxOutputBytes;
  return new Promise((resolve) => {
    try {
      const child = process.getBuiltinModule("node:child_process").execFile(
        invocation.git,
        [...gitSafetyArguments, ...invocation.args],
        {
          cwd: invocation.cwd,
          env: gitEnvironment(invocation.filterDrivers),
          encoding: "buffer",
          timeout: invocation.timeoutMs,
          killSignal: "SIGKILL",
          maxBuffer,
          windowsHide: true,
        },
        (error, stdout) => resolve(outcome(error, stdout)),
      );
      // Anything that would read standard input (a prompt) reads end of file instead of waiting.
      child.stdin?.end();
    } catch (error) {
      // execFile throws at once for arguments it cannot pass on (e.g. a NUL in a value).
      resolve({ kind: "failed", cause: error });
    }
  });
}

function outcome(error: (Error & { code?: unknown; killed?: boolean; signal?: unknown }) | null, stdout: Buffer) {
  if (error === null) return { kind: "exited", code: 0, stdout: stdout.toString("utf8") } as const;
  if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" && stdout.byteLength > 0)
    return { kind: "overflowed" } as const;
  // A numeric code is git's exit status; a killed or signalled process (the timeout) has none.
  if (typeof error.code === "number" && !error.killed && !error.signal) {
    return { kind: "exited", code: error.code, stdout: stdout.toString("utf8") } as const;
  }
  return { kind: "failed", cause: error } as const;
}
