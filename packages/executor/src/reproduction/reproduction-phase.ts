import type { JobCommandsOptions } from "../commands/job-commands.js";
import type { ExecutorKnobs } from "../config/knobs.js";
import type { CheckoutGit } from "../git/checkout-git.js";
import type { JobWorkFields } from "../registry/job-registry.js";
import type { JobWatch } from "../watch/job-watch.js";
import {
  judgeAttempt,
  type ProofAttempt,
  type ReproductionReport,
  repairable,
  reproductionRepairNote,
  runProofAttempt,
} from "./reproduction.js";

/**
 * The reproduction phase: an attempt, and while it falls short in a way the agent's tree can
 * change and repair passes remain, a repair pass with both trees' outputs and another attempt.
 * `reproductionTotalBudgetMs` is checked at each boundary (before an attempt, before a repair
 * pass); spent, the proof is `inconclusive` with `budget-spent`. It never fails the job.
 */
export async function runReproduction(options: {
  readonly work: JobWorkFields;
  /** Where the proof's worktrees go: under the job's directory, outside the checkout. */
  readonly directory: string;
  readonly baseSha: string;
  readonly spec: { readonly setup?: readonly string[]; readonly check: string; readonly maxRepairPasses: number };
  readonly limits: Pick<
    ExecutorKnobs,
    "reproductionCommandTimeoutMs" | "reproductionHeartbeatMs" | "reproductionTotalBudgetMs"
  >;
  /** Git on the checkout, in the job's sandbox. */
  readonly git: CheckoutGit;
  /** The job's command settings, without the root. */
  readonly jobCommands: Omit<JobCommandsOptions, "root" | "signal">;
  readonly watch: JobWatch;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
  /** Runs a repair pass (and its salvage) with this note. */
  readonly repair: (note: string) => Promise<void>;
}): Promise<ReproductionReport> {
  const started = Date.now();
  const spent = () => Date.now() - started >= options.limits.reproductionTotalBudgetMs;
  const attempts: ProofAttempt[] = [];
  let repairsLeft = options.spec.maxRepairPasses;
  for (;;) {
    if (spent()) return { outcome: "inconclusive", reason: "budget-spent", attempts };
    await options.work.update({ phase: "reproduction" });
    const attempt = await runProofAttempt({
      directory: options.directory,
      attempt: attempts.length + 1,
      baseSha: options.baseSha,
      git: options.git,
      jobCommands: options.jobCommands,
      commands: {
        setup: options.spec.setup ?? [],
        check: options.spec.check,
        timeoutMs: options.limits.reproductionCommandTimeoutMs,
        heartbeatMs: options.limits.reproductionHeartbeatMs,
        onHeartbeat: () => options.watch.activity(),
        scrub: options.scrub,
        signal: options.signal,
      },
    });
    attempts.push(attempt);
    options.watch.activity();
    const verdict = judgeAttempt(attempt);
    if (verdict === "proven") return { outcome: "proven", attempts };
    if (repairsLeft === 0 || !repairable(attempt)) return { outcome: "inconclusive", reason: verdict, attempts };
    if (spent()) return { outcome: "inconclusive", reason: "budget-spent", attempts };
    repairsLeft--;
    await options.repair(reproductionRepairNote(attempt, options.spec.check, repairsLeft));
  }
}
