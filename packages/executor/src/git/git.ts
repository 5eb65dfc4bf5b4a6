import { execFile } from "node:child_process";
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

/** How the server runs git for a job: no hooks, an explicit environment, the job's signal. */
export interface GitContext {
  readonly env: Readonly<Record<string, string>>;
  /** An empty directory set as `core.hooksPath`, so no hook of a repository runs. */
  readonly hooksPath: string;
  readonly redactor: Redactor;
  readonly signal: AbortSignal;
  /** Each git command's bound, in ms. Default 300,000. */
  readonly timeoutMs?: number;
}

/** Makes the empty hooks directory a context names. */
export async function prepareHooksPath(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
}

/** Runs `git <args>` in `cwd`; resolves with its stdout, rejects with a scrubbed `GitCommandError`. */
export function runGit(args: readonly string[], cwd: string, context: GitContext): Promise<string> {
  const full = ["-c", `core.hooksPath=${context.hooksPath}`, "-c", "credential.helper=", ...args];
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      full,
      {
        cwd,
        env: { ...context.env, GIT_TERMINAL_PROMPT: "0" },
        signal: context.signal,
        timeout: context.timeoutMs ?? 300_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const code = typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : null;
        const what = args[0] ?? "git";
        reject(
          new GitCommandError(
            context.redactor.scrub(
              `git ${what} failed${code !== null ? ` (exit ${code})` : ""}: ${stderr.trim() || error.message}`,
            ),
            code,
          ),
        );
      },
    );
  });
}
