import type { SharedBody } from "../body/body-fields.js";
import type { BranchCheckout, JobRun } from "../run/job-run.js";

/** Phase `push`: the work branch published once more, lease-guarded; the result names the branch and its head. */
export async function pushBranch(run: JobRun<SharedBody, BranchCheckout>): Promise<void> {
  await run.work.update({ phase: "push" });
  const pushed = await run.cloned.pusher.push();
  run.findings.report.branch = run.branch;
  run.findings.report.headSha = pushed.sha;
}
