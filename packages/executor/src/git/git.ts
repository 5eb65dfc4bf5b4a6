import { mkdir } from "node:fs/promises";
import { errorMessage } from "@castellan/harness";
import { type DetachedProcess, spawnDetached } from "@castellan/node-runner";
import type { Redactor } from "../log/redactor.js";

/** A git command that failed; its message is scrubbed of the job's credentials. */
export class GitCommandError extends Error {
  readonly exitCode: number | null;

  constructor(message: string, exitCode: number | null) {
    super(message);
    this.name = "GitCommandError";
    this.exitCode = exitCode;
  }
}

/**
 * How the server starts a process of its own (git): detached, in its own process group, with
 * exactly `cwd` and `env`. Default `spawnDetached` from `@castellan/node-runner` (through its
 * spawn broker, so a fork never stalls the server's event loop).
 */
export type SpawnProcess = (
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
) => DetachedProcess;

/** How the server runs git for a job: no hooks, an explicit environment, the job's signal. */
export interface GitContext {
  readonly env: Readonly<Record<string, string>>;
  /** An empty directory set as `core.hooksPath`, so no hook of a repository runs. */
  readonly hooksPath: string;
  readonly redactor: Redactor;
  readonly signal: AbortSignal;
  /** Each git command's bound, in ms. Default 300,000. */
  readonly timeoutMs?: number;
  /** Starts the process. Default `spawnDetached`. */
  readonly spawn?: SpawnProcess;
}

/** The most output kept of one git command, per stream. */
const maxOutputBytes = 16 * 1024 * 1024;

/** Makes the empty hooks directory a context names. */
export async function prepareHooksPath(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
}

/** Runs `git <args>` in `cwd`; resolves with its stdout, rejects with a scrubbed `GitCommandError`. */
export function runGit(args: readonly string[], cwd: string, context: GitContext): Promise<string> {
  const full = ["-c", `core.hooksPath=${context.hooksPath}`, "-c", "credential.helper=", ...args];
  const what = args[0] ?? "git";
  const failed = (detail: string, code: number | null) =>
    new GitCommandError(
      context.redactor.scrub(`git ${what} failed${code !== null ? ` (exit ${code})` : ""}: ${detail}`),
      code,
    );
  return new Promise((resolve, reject) => {
    context.signal.throwIfAborted();
    let child: DetachedProcess;
    try {
      child = (context.spawn ?? spawnDetached)("git", full, { cwd, env: { ...context.env, GIT_TERMINAL_PROMPT: "0" } });
    } catch (error) {
      reject(failed(errorMessage(error), null));
      return;
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const sizes = { stdout: 0, stderr: 0 };
    const keep = (into: Buffer[], key: "stdout" | "stderr") => (chunk: Buffer) => {
      if (sizes[key] >= maxOutputBytes) return;
      sizes[key] += chunk.length;
      into.push(chunk);
    };
    child.stdout?.on("data", keep(stdout, "stdout"));
    child.stderr?.on("data", keep(stderr, "stderr"));
    // The group goes whole on a timeout or an abort: git's helpers (ssh, remote-http) with it.
    let stopped: string | undefined;
    const kill = (why: string) => {
      stopped ??= why;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }
    };
    const timer = setTimeout(
      () => kill(`timed out after ${context.timeoutMs ?? 300_000} ms`),
      context.timeoutMs ?? 300_000,
    );
    const onAbort = () => kill("stopped");
    context.signal.addEventListener("abort", onAbort, { once: true });
    child.once("spawn", () => {
      if (context.signal.aborted) onAbort();
    });
    let spawnError: Error | undefined;
    child.once("error", (error) => {
      spawnError = error;
      settle(null, null);
    });
    let settled = false;
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
      // The output is read to its end before the answer (the streams close after the exit).
      const done = () => {
        const text = Buffer.concat(stderr).toString("utf8").trim();
        if (code === 0 && !stopped) return resolve(Buffer.concat(stdout).toString("utf8"));
        const detail = stopped ?? (text || spawnError?.message || (signal ? `stopped by ${signal}` : "no output"));
        reject(failed(detail, code));
      };
      const streams = [child.stdout, child.stderr].filter((stream) => stream && !stream.destroyed);
      if (streams.length === 0 || spawnError) return done();
      let open = streams.length;
      // A helper that left the group may hold a pipe: its output is not waited for past 2 s.
      const late = setTimeout(() => {
        open = -1;
        for (const stream of streams) stream?.destroy();
        done();
      }, 2_000);
      for (const stream of streams) {
        stream?.once("close", () => {
          if (--open !== 0) return;
          clearTimeout(late);
          done();
        });
      }
    };
    child.once("exit", (code, signal) => settle(code, signal));
  });
}
