import { runValidation } from "../../validation/validation-phase.js";
import type { CoderBody } from "../body/coder-body.js";
import type { JobRun } from "../run/job-run.js";

/**
 * Phase `validation`, when the body has checks: rounds and repair passes (see
 * `runValidation`). Still red at the end, the job settles on `validation-failed`: the branch
 * is still pushed, no pull request is opened, and the result is the error's evidence.
 */
export async function validate(run: JobRun<CoderBody>): Promise<void> {
  const spec = run.body.validationChecks;
  if (!spec) return;
  const validation = await runValidation({
    work: run.work,
    checkout: run.directories.checkout,
    spec,
    timeoutMs: run.options.limits.validationCommandTimeoutMs,
    jobCommands: run.jobCommands,
    watch: run.watch,
    scrub: (text) => run.redactor.scrub(text),
    signal: run.signal,
    repair: (note) => run.pass(note),
  });
  run.findings.validation = validation;
  if (!validation.passed) {
    run.findings.failure = {
      code: "validation-failed",
      message:
        "Validation still failed after the repair passes; the branch keeps its checkpoints and no pull request was opened.",
    };
  }
}
