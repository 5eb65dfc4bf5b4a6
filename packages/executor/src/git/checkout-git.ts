import {
  type CommandRuntime,
  type RefusedGitConfig,
  runSandboxedGit,
  runSandboxedShell,
  type SandboxedGitOutcome,
} from "@castellan/node-runner";
import { type JobCommandsOptions, openJobCommands } from "../commands/job-commands.js";
import type { Redactor } from "../log/redactor.js";
import { GitCommandError } from "./git.js";
import { scanProgramConfig } from "./program-config-scan.js";

/**
 * Git on a job's checkout. Every byte of the checkout, `.git/` included, is the agent's, so
 * nothing here runs git outside the job's sandbox: see {@link SandboxedCheckoutGit}.
 */
export interface CheckoutGit {
  /** The checkout's absolute path. */
  readonly root: string;
  /**
   * Runs `git <args>` in the checkout (or `cwd`, a path inside it); resolves with its standard
   * output, rejects with a scrubbed `GitCommandError` carrying the exit code.
   */
  run(args: readonly string[], options?: CheckoutGitCallOptions): Promise<string>;
  /** Runs a shell script of git commands there, as {@link CheckoutGit.run} does one command. */
  script(script: string, options?: CheckoutGitCallOptions): Promise<string>;
  /** What the checkout's config (and its nested repositories') names that the server never runs. */
  refusedConfig(options?: CheckoutGitCallOptions): Promise<RefusedGitConfig[]>;
}

/** What one call may set. */
export interface CheckoutGitCallOptions {
  /** Replaces the job's signal (the last checkpoint of a stopped job has its own). */
  readonly signal?: AbortSignal;
  /** A path inside the checkout, relative to it. Default the checkout itself. */
  readonly cwd?: string;
}

/** How a {@link SandboxedCheckoutGit} runs. */
export interface SandboxedCheckoutGitOptions {
  /** The command runtime's settings: rooted at the checkout, the job's policies. */
  readonly commands: Omit<JobCommandsOptions, "signal">;
  readonly redactor: Redactor;
  /** The job's signal: each call is ended with it unless the call gives its own. */
  readonly signal: AbortSignal;
  /** Each call's bound, in ms. Default 300,000. */
  readonly timeoutMs?: number;
}

/**
 * Runs git on the checkout in a command runtime of the job's own OS sandbox, opened on the
 * first call and kept until {@link SandboxedCheckoutGit.close}: the same filesystem, network
 * and environment policies as the agent's commands, and so no access to the token, the data
 * directory or another job. A config key the agent planted (an fsmonitor, a filter, an
 * include, a `commondir` elsewhere) runs, if at all, confined like any command of the agent.
 * The runtime has a signal of its own, so the last checkpoint of a stopped job still runs.
 */
export class SandboxedCheckoutGit implements CheckoutGit {
  readonly root: string;
  private opened: Promise<CommandRuntime> | undefined;
  private readonly lifetime = new AbortController();

  constructor(private readonly options: SandboxedCheckoutGitOptions) {
    this.root = options.commands.root;
  }

  async run(args: readonly string[], call: CheckoutGitCallOptions = {}): Promise<string> {
    const outcome = await runSandboxedGit(await this.commands(), { args, ...this.callOptions(call) });
    return this.stdoutOf(args[0] ?? "git", outcome);
  }

  async script(script: string, call: CheckoutGitCallOptions = {}): Promise<string> {
    const outcome = await runSandboxedShell(await this.commands(), { script, ...this.callOptions(call) });
    return this.stdoutOf("script", outcome);
  }

  refusedConfig(call: CheckoutGitCallOptions = {}): Promise<RefusedGitConfig[]> {
    return scanProgramConfig(this, call);
  }

  /** Closes the command runtime; a later call opens a new one. */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened) return;
    await opened.then(
      (commands) => commands.close(),
      () => undefined,
    );
  }

  /** Closes for good: no call runs after. */
  async dispose(): Promise<void> {
    this.lifetime.abort();
    await this.close();
  }

  private commands(): Promise<CommandRuntime> {
    this.lifetime.signal.throwIfAborted();
    this.opened ??= openJobCommands({ ...this.options.commands, signal: this.lifetime.signal });
    const opened = this.opened;
    // A runtime that would not open is not kept: the next call tries again.
    opened.catch(() => {
      if (this.opened === opened) this.opened = undefined;
    });
    return opened;
  }

  private callOptions(call: CheckoutGitCallOptions) {
    return {
      timeoutMs: this.options.timeoutMs ?? 300_000,
      signal: call.signal ?? this.options.signal,
      ...(call.cwd !== undefined ? { cwd: call.cwd } : {}),
    };
  }

  private stdoutOf(what: string, outcome: SandboxedGitOutcome): string {
    const scrub = (text: string) => this.options.redactor.scrub(text);
    if (outcome.kind === "exited" && outcome.code === 0) return outcome.stdout;
    if (outcome.kind === "exited") {
      const detail = outcome.stderr.trim() || outcome.stdout.trim().slice(0, 2_000) || "no output";
      throw new GitCommandError(scrub(`git ${what} failed (exit ${outcome.code}): ${detail}`), outcome.code);
    }
    if (outcome.kind === "overflowed") {
      throw new GitCommandError(`git ${what} failed: its output passed the 16 MiB bound`, null);
    }
    throw new GitCommandError(scrub(`git ${what} failed in the job's sandbox: ${outcome.reason}`), null);
  }
}
