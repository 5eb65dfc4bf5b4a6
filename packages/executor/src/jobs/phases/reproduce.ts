import { runReproduction } from "../../reproduction/reproduction-phase.js";
import type { CoderBody } from "../body/coder-body.js";
import type { BranchCheckout, JobRun } from "../run/job-run.js";

/** Phase `reproduction`, when the body asks for a proof: attempts and repair passes (see `runReproduction`); it never fails the job. */
export async function reproduce(run: JobRun<CoderBody, BranchCheckout>): Promise<void> {
  const spec = run.body.reproduction;
  if (!spec) return;
  run.findings.reproduction = await runReproduction({
    work: run.work,
    directory: run.directories.proof,
    baseSha: run.cloned.baseSha,
    spec,
    limits: run.options.limits,
    git: run.cloned.git,
    jobCommands: run.jobCommands,
    watch: run.watch,
    scrub: (text) => run.redactor.scrub(text),
    signal: run.signal,
    repair: (note) => run.pass(note),
  });
}
