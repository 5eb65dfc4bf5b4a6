import { prepareCheckout } from "../../git/checkout.js";
import { gitAuthEnvironment } from "../../git/git-auth.js";
import { BranchPusher } from "../../push/branch-pusher.js";
import type { SharedBody } from "../body/body-fields.js";
import type { BranchCheckout } from "../run/job-run.js";
import type { JobSetup } from "../run/job-setup.js";

/**
 * Phase `clone` of a job on the target's work branch: a shallow single-branch clone (the work
 * branch's tip on a resume), the base commit recorded for a resume, the publish repository
 * seeded while the checkout is still as the server cloned it (the one time git reads it on the
 * host), then git on the checkout in the job's sandbox and the lease-guarded pusher of the
 * work branch.
 */
export async function cloneTarget(setup: JobSetup<SharedBody>): Promise<BranchCheckout> {
  const { work, body, redactor } = setup;
  await work.update({ phase: "clone" });
  const prepared = await prepareCheckout({
    url: body.repo.url,
    baseBranch: body.repo.baseBranch,
    workBranch: setup.branch,
    checkout: setup.directories.checkout,
    cwd: work.directory,
    resumed: work.resumedFrom !== undefined,
    baseSha: work.baseSha,
    author: setup.options.commitAuthor,
    git: setup.git,
    auth: gitAuthEnvironment(body.repo.token, redactor),
  });
  if (prepared.baseSha !== work.baseSha) await work.update({ baseSha: prepared.baseSha });
  setup.watch.activity();
  await setup.publish.seedFromPristine(setup.directories.checkout, [prepared.baseSha]);
  const git = setup.openCheckoutGit();
  const pusher = new BranchPusher({
    checkout: git,
    publish: setup.publish,
    url: body.repo.url,
    branch: setup.branch,
    auth: gitAuthEnvironment(body.repo.token, redactor),
    ...(prepared.onExistingBranch ? { remoteTip: prepared.startSha } : {}),
  });
  return { startSha: prepared.startSha, baseSha: prepared.baseSha, git, pusher };
}
