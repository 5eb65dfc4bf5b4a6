import { type JobCommandsOptions, withJobCommands } from "../commands/job-commands.js";
import type { JobWorkFields } from "../registry/job-registry.js";
import type { JobWatch } from "../watch/job-watch.js";
import { roundPassed, runValidationRound, type ValidationReport, validationRepairNote } from "./validation.js";

/** How often a running check feeds the inactivity watchdog. */
const checkHeartbeatMs = 30_000;

/**
 * The validation phase: a round of the body's checks, and while one fails and repair passes
 * remain, a repair pass with the failing command and its output, then another round. The last
 * round decides `passed`; spent, the caller fails the job `validation-failed` with the report.
 */
export async function runValidation(options: {
  readonly work: JobWorkFields;
  readonly checkout: string;
  readonly spec: {
    readonly commands: readonly { readonly name: string; readonly command: string }[];
    readonly maxRepairPasses: number;
  };
  readonly timeoutMs: number;
  /** The job's command settings, without the root (the checkout). */
  readonly jobCommands: Omit<JobCommandsOptions, "root" | "signal">;
  readonly watch: JobWatch;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
  readonly repair: (note: string) => Promise<void>;
}): Promise<ValidationReport> {
  const rounds: { checks: Awaited<ReturnType<typeof runValidationRound>> }[] = [];
  let repairsLeft = options.spec.maxRepairPasses;
  for (;;) {
    await options.work.update({ phase: "validation" });
    const checks = await withJobCommands(
      { ...options.jobCommands, root: options.checkout, signal: options.signal },
      (runtime) =>
        runValidationRound({
          runtime,
          commands: options.spec.commands,
          timeoutMs: options.timeoutMs,
          heartbeatMs: checkHeartbeatMs,
          onHeartbeat: () => options.watch.activity(),
          scrub: options.scrub,
          signal: options.signal,
        }),
    );
    rounds.push({ checks });
    if (roundPassed(checks, options.spec.commands.length)) return { passed: true, rounds };
    if (repairsLeft === 0) return { passed: false, rounds };
    repairsLeft--;
    const failing = checks.at(-1) as (typeof checks)[number];
    const command = options.spec.commands.find((entry) => entry.name === failing.name)?.command ?? "";
    await options.repair(validationRepairNote(failing, command, repairsLeft));
  }
}
