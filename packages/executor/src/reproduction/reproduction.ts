import { rm } from "node:fs/promises";
import { join } from "node:path";
import { type JobCommandsOptions, withJobCommands } from "../commands/job-commands.js";
import { runServerCommand } from "../commands/server-command.js";
import type { CheckoutGit } from "../git/checkout-git.js";
import { GitCommandError } from "../git/git.js";

/** The bytes of a tree's output an attempt keeps: the last 16 KiB, after scrubbing. */
export const reproductionTailBytes = 16_384;

/** What one tree of an attempt did. */
export interface ProofTreeRun {
  /** The exit codes of the `setup` commands that ran, in order (the first non-zero stops them). */
  readonly setup: readonly number[];
  /** The check's exit code; absent when a setup command failed and the check never ran. */
  readonly exitCode?: number;
  /** The interleaved output of the setup commands and the check, scrubbed, its last 16 KiB. */
  readonly outputTail: string;
  readonly truncated: boolean;
}

/** One attempt of the proof: the base commit's tree and the fixed tree, each checked. */
export interface ProofAttempt {
  readonly preSha: string;
  readonly postSha: string;
  readonly pre: ProofTreeRun;
  readonly post: ProofTreeRun;
}

/** Why an attempt did not prove the fix. */
export type ProofShortfall = "not-red-before" | "not-green-after" | "setup-failed";

/** The proof's report: it never fails the job or gates the pull request. */
export interface ReproductionReport {
  readonly outcome: "proven" | "inconclusive";
  readonly reason?: ProofShortfall | "budget-spent";
  readonly attempts: readonly ProofAttempt[];
}

/** A tree could not be set up: a setup command failed, or the check was not runnable (126) or not found (127). */
function setupFailed(run: ProofTreeRun): boolean {
  return run.exitCode === undefined || run.exitCode === 126 || run.exitCode === 127;
}

/** How an attempt reads: proven only when the base tree fails the check and the fixed tree passes it. */
export function judgeAttempt(attempt: ProofAttempt): ProofShortfall | "proven" {
  if (setupFailed(attempt.pre) || setupFailed(attempt.post)) return "setup-failed";
  if (attempt.pre.exitCode === 0) return "not-red-before";
  if (attempt.post.exitCode !== 0) return "not-green-after";
  return "proven";
}

/**
 * Whether a repair pass can change the outcome: only the fixed tree is the agent's, so a base
 * tree that passes, or one that cannot be set up, is the same after any repair.
 */
export function repairable(attempt: ProofAttempt): boolean {
  const verdict = judgeAttempt(attempt);
  if (verdict === "not-green-after") return true;
  return verdict === "setup-failed" && !setupFailed(attempt.pre);
}

/** What running the proof in one tree needs. */
export interface ProofCommands {
  readonly setup: readonly string[];
  readonly check: string;
  readonly timeoutMs: number;
  readonly heartbeatMs: number;
  readonly onHeartbeat: () => void;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
}

async function runTree(
  root: string,
  jobCommands: Omit<JobCommandsOptions, "root">,
  commands: ProofCommands,
): Promise<ProofTreeRun> {
  return withJobCommands({ ...jobCommands, root }, async (runtime) => {
    const setup: number[] = [];
    const outputs: string[] = [];
    let truncated = false;
    const run = async (command: string) => {
      const result = await runServerCommand(runtime, {
        command,
        timeoutMs: commands.timeoutMs,
        heartbeatMs: commands.heartbeatMs,
        onHeartbeat: commands.onHeartbeat,
        tailBytes: reproductionTailBytes,
        scrub: commands.scrub,
        signal: commands.signal,
      });
      commands.signal.throwIfAborted();
      outputs.push(`$ ${command}\n${result.output}`);
      truncated ||= result.truncated;
      return result.exitCode;
    };
    for (const command of commands.setup) {
      const code = await run(command);
      setup.push(code);
      if (code !== 0) {
        const tail = outputs.join("\n");
        return {
          setup,
          outputTail: tail.slice(-reproductionTailBytes),
          truncated: truncated || tail.length > reproductionTailBytes,
        };
      }
    }
    const exitCode = await run(commands.check);
    const tail = outputs.join("\n");
    return {
      setup,
      exitCode,
      outputTail: tail.slice(-reproductionTailBytes),
      truncated: truncated || tail.length > reproductionTailBytes,
    };
  });
}

/**
 * One attempt: two fresh detached worktrees under `directory`, pre at `baseSha` (never the
 * pass's start tip: a resumed or repair pass starts after the fix) and post at HEAD; the same
 * setup, then the check, in each, as sandboxed `/bin/sh -c` with the job's environment and
 * network. The worktrees are removed after the attempt, whatever happened. The worktrees are
 * made and removed by git in the job's sandbox (the checkout's config is the agent's), which
 * may write `directory` for that.
 */
export async function runProofAttempt(options: {
  readonly directory: string;
  readonly attempt: number;
  readonly baseSha: string;
  /** Git on the checkout, in the job's sandbox. */
  readonly git: CheckoutGit;
  /** The job's command settings, without the root (each tree is its own). */
  readonly jobCommands: Omit<JobCommandsOptions, "root" | "signal">;
  readonly commands: ProofCommands;
}): Promise<ProofAttempt> {
  const { git } = options;
  const postSha = (await git.run(["rev-parse", "HEAD"])).trim();
  if (!/^[0-9a-f]{40,64}$/.test(postSha)) throw new GitCommandError("The checkout's HEAD is not a commit id.", null);
  const pre = join(options.directory, `pre-${options.attempt}`);
  const post = join(options.directory, `post-${options.attempt}`);
  const settings = { ...options.jobCommands, signal: options.commands.signal };
  try {
    await git.run(["worktree", "add", "--detach", pre, options.baseSha]);
    await git.run(["worktree", "add", "--detach", post, postSha]);
    const preRun = await runTree(
      pre,
      { ...settings, filesystem: withTree(settings.filesystem, pre) },
      options.commands,
    );
    const postRun = await runTree(
      post,
      { ...settings, filesystem: withTree(settings.filesystem, post) },
      options.commands,
    );
    return { preSha: options.baseSha, postSha, pre: preRun, post: postRun };
  } finally {
    const quiet = { signal: AbortSignal.timeout(60_000) };
    for (const tree of [pre, post]) {
      await git.run(["worktree", "remove", "--force", tree], quiet).catch(() => undefined);
      await rm(tree, { recursive: true, force: true });
    }
    await git.run(["worktree", "prune"], quiet).catch(() => undefined);
  }
}

/** A proof tree lives under the job's directory, which the job's sandbox may not read: it is opened again. */
function withTree(
  filesystem: JobCommandsOptions["filesystem"],
  tree: string,
): NonNullable<JobCommandsOptions["filesystem"]> {
  return {
    ...filesystem,
    allowRead: [...(filesystem?.allowRead ?? []), tree],
  };
}

/** The repair pass's brief: both trees' outputs and what the proof needs. */
export function reproductionRepairNote(attempt: ProofAttempt, check: string, passesLeft: number): string {
  const verdict = judgeAttempt(attempt);
  const tree = (label: string, sha: string, run: ProofTreeRun) =>
    [
      `### ${label} (${sha.slice(0, 12)}): ${run.exitCode === undefined ? `setup failed (exit ${run.setup.at(-1)})` : `check exit ${run.exitCode}`}`,
      "```text",
      run.outputTail.replace(/```/g, "'''").trimEnd(),
      "```",
    ].join("\n");
  const why =
    verdict === "not-green-after"
      ? "The check still fails on your branch's tree: the bug is not fixed yet."
      : "The check could not run on your branch's tree (a setup command failed, or the check was not found or not runnable).";
  return [
    "## Reproduction proof not met",
    `The server ran the reproduction check \`${check.replace(/`/g, "'")}\` on the base commit and on your branch. It must fail before your change and pass after it. ${why}`,
    tree("Before (the base commit)", attempt.preSha, attempt.pre),
    tree("After (your branch)", attempt.postSha, attempt.post),
    `Fix the cause and commit. ${passesLeft} repair pass${passesLeft === 1 ? "" : "es"} remain${passesLeft === 1 ? "s" : ""} after this one.`,
  ].join("\n\n");
}
