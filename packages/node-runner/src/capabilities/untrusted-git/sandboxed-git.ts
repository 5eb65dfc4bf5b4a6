import { errorMessage } from "@castellan/harness";
import type { Session } from "../../kernel/session/session.js";
import { CommandRuntime, runSessionCommand } from "../commands/index.js";

// Git over a checkout an agent can write runs where the agent's own commands run: in the
// Session's sandbox. Whatever the checkout's config names (an fsmonitor, a filter, an include,
// a commondir elsewhere) then runs confined like any command of the agent, never as the host.
// The options below are not the boundary (the sandbox is); they keep the host's own git steps
// deterministic whatever the agent configured.

/** The options every sandboxed git invocation starts with, before the git command itself. */
export const sandboxedGitArguments: readonly string[] = Object.freeze([
  "--no-pager",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "protocol.allow=never",
  "-c",
  "credential.helper=",
  "-c",
  "commit.gpgSign=false",
  "-c",
  "core.quotePath=false",
]);

/** Variables every sandboxed git invocation gets, over the Session's environment policy. */
export const sandboxedGitEnvironment: Readonly<Record<string, string>> = Object.freeze({
  LC_ALL: "C",
  GIT_TERMINAL_PROMPT: "0",
  GIT_NO_LAZY_FETCH: "1",
  GIT_PAGER: "cat",
});

/** One argument quoted for `/bin/sh -c`: single quotes, each embedded quote closed and escaped. */
export function shellArgument(argument: string): string {
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}

/** The shell text of `git <safety options> <args>`, every argument quoted. */
export function sandboxedGitCommandLine(args: readonly string[]): string {
  return ["git", ...sandboxedGitArguments, ...args].map(shellArgument).join(" ");
}

/**
 * Shell text, run in the sandbox before a git command, that empties every filter driver the
 * checkout's config defines (through GIT_CONFIG_COUNT, which config files cannot override): a
 * planted `filter.<driver>.process` would otherwise hold the host's own git step until its
 * timeout, and a `clean` would rewrite what salvage commits. The sandbox is the boundary; this
 * only keeps the host's steps working whatever the agent configured.
 */
export const neutralizeFiltersPrelude = [
  "n=0",
  "for k in $(git --no-pager config --name-only --get-regexp '^filter[.]' 2>/dev/null); do",
  '  case "$k" in',
  '    *.clean|*.smudge|*.process) v="" ;;',
  "    *.required) v=false ;;",
  "    *) continue ;;",
  "  esac",
  '  export "GIT_CONFIG_KEY_$n=$k" "GIT_CONFIG_VALUE_$n=$v"',
  "  n=$((n+1))",
  "done",
  "export GIT_CONFIG_COUNT=$n",
].join("\n");

/** What {@link runSandboxedGit} runs. */
export interface SandboxedGitRequest {
  /** The git command and its arguments, after {@link sandboxedGitArguments}. */
  readonly args: readonly string[];
  /** A workspace path beneath the target's root to run in. Default the root. */
  readonly cwd?: string;
  /** Killed after this many milliseconds (1 to 2,147,483,647). */
  readonly timeoutMs: number;
  /** Ends the invocation's process group. */
  readonly signal?: AbortSignal;
  /** Variables over {@link sandboxedGitEnvironment}. Default none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Bytes kept of each stream; more makes the outcome `overflowed`. Default 16 MiB (the bound). */
  readonly maxOutputBytes?: number;
}

/**
 * How one sandboxed invocation ended: `exited` with its status and both streams (text the
 * sandbox produced: data to check, never to trust), `overflowed` when a stream passed the
 * bound, `failed` when it timed out, was stopped, died by a signal or could not start.
 */
export type SandboxedGitOutcome =
  | { readonly kind: "exited"; readonly code: number; readonly stdout: string; readonly stderr: string }
  | { readonly kind: "overflowed" }
  | { readonly kind: "failed"; readonly reason: string; readonly cause?: unknown };

const defaultMaxOutputBytes = 16 * 1024 * 1024;

/**
 * Where sandboxed git runs: a Session (through {@link runSessionCommand}, where its
 * `exec_command` runs) or a command runtime of the host's own (`createCommandRuntime`).
 */
export type SandboxedGitTarget = Session | CommandRuntime;

/**
 * Runs `git` (or, with {@link runSandboxedShell}, a script of git commands) on an untrusted
 * checkout in `target`'s sandbox: a Session's (the same supervisor, sandbox, environment policy
 * and network rules as its `exec_command`) or a command runtime's. Never rejects.
 */
export function runSandboxedGit(
  target: SandboxedGitTarget,
  request: SandboxedGitRequest,
): Promise<SandboxedGitOutcome> {
  return runSandboxedShell(target, {
    ...request,
    script: `${neutralizeFiltersPrelude}\nexec ${sandboxedGitCommandLine(request.args)}`,
  });
}

/** {@link runSandboxedGit} for a shell script the caller built (with {@link sandboxedGitCommandLine}). */
export async function runSandboxedShell(
  target: SandboxedGitTarget,
  request: Omit<SandboxedGitRequest, "args"> & { readonly script: string },
): Promise<SandboxedGitOutcome> {
  const bound = request.maxOutputBytes ?? defaultMaxOutputBytes;
  try {
    const command = {
      command: request.script,
      timeoutMs: request.timeoutMs,
      maxOutputBytesPerStream: bound,
      env: { ...sandboxedGitEnvironment, ...request.env },
      ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    };
    const result =
      target instanceof CommandRuntime ? await target.run(command) : await runSessionCommand(target, command);
    if (result.droppedBytes.stdout > 0 || result.droppedBytes.stderr > 0) return { kind: "overflowed" };
    if (result.outcome === "timeout") return { kind: "failed", reason: `timed out after ${request.timeoutMs} ms` };
    if (result.outcome === "cleanup" || result.outcome === "stop") return { kind: "failed", reason: "stopped" };
    if (result.exitCode === null) return { kind: "failed", reason: `ended by ${result.signal ?? "a signal"}` };
    return { kind: "exited", code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  } catch (error) {
    return { kind: "failed", reason: errorMessage(error), cause: error };
  }
}
