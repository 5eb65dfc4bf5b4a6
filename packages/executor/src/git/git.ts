import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from "node:child_process";
import { mkdir } from "node:fs/promises";
import type { Redactor } from "../redactor.js";

/** A git command that failed; its message is scrubbed of the job's credentials. */
export class GitCommandError extends Error {
  readonly exitCode: number | null;

  constructor(message: string, exitCode: number | null) {
    super(message);
    this.name = "GitCommandError";
    this.exitCode = exitCode;
  }
}

/** How the server starts a process of its own (git): `node:child_process` `spawn`'s shape. */
export type SpawnProcess = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** How the server runs git for a job: no hooks, an explicit environment, the job's signal. */
export interface GitContext {
  readonly env: Readonly<Record<string, string>>;
  /** An empty directory set as `core.hooksPath`, so no hook of a repository runs. */
  readonly hooksPath: string;
  readonly redactor: Redactor;
  readonly signal: AbortSignal;
  /** Each git command's bound, in ms. Default 300,000. */
  readonly timeoutMs?: number;
  /** Starts the process. Default `node:child_process` `spawn`. */
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
    let child: ChildProcess;
    try {
      child = (context.spawn ?? nodeSpawn)("git", full, {
        cwd,
        env: { ...context.env, GIT_TERMINAL_PROMPT: "0" },
        signal: context.signal,
        timeout: context.timeoutMs ?? 300_000,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      reject(failed(error instanceof Error ? error.message : String(error), null));
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
    let spawnError: Error | undefined;
    child.once("error", (error) => {
      spawnError = error;
    });
    child.once("close", (code, signal) => {
      const text = Buffer.concat(stderr).toString("utf8").trim();
      if (code === 0) return resolve(Buffer.concat(stdout).toString("utf8"));
      const detail = text || spawnError?.message || (signal ? `stopped by ${signal}` : "no output");
      reject(failed(detail, code));
    });
  });
}
