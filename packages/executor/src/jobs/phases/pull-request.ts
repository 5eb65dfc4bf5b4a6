import { PullRequestError } from "../../pr/host/pull-request-error.js";
import { renderPrReport } from "../../pr/pr-report.js";
import { openPullRequest } from "../../pr/pull-request-phase.js";
import { resolvePrTemplate } from "../../pr/template/resolve-template.js";
import { JobFailure } from "../../registry/job-failure.js";
import { mergeSalvage } from "../../salvage/salvage.js";
import type { CoderBody } from "../body/coder-body.js";
import type { JobRun } from "../run/job-run.js";

/**
 * Before the first pass, when the body asks for a pull request: the repository's PR template
 * (its notes into the result), so every pass is told to brief the pull request with it.
 */
export async function prTemplate(run: JobRun<CoderBody>): Promise<void> {
  if (!run.body.pullRequest) return;
  const resolution = await resolvePrTemplate(run.directories.checkout);
  run.findings.notes.push(...resolution.notes);
  run.findings.pullRequest = { template: resolution.template };
}

/**
 * Phase `pr`, after the push, when the body asks for a pull request and no phase settled on a
 * failure (validation green, or none): opens or refreshes it with the agent's briefing (else
 * the body's text) and the server's report. A host's refusal fails the job `pr-failed`, naming
 * the pushed branch. The result says where the description came from either way.
 */
export async function pullRequest(run: JobRun<CoderBody>): Promise<void> {
  const { body, findings } = run;
  findings.report.prDescriptionSource = findings.briefing ? "agent" : "fallback";
  if (!body.pullRequest || !body.repo.token || findings.failure) return;
  await run.work.update({ phase: "pr" });
  const salvage = mergeSalvage(findings.salvages);
  try {
    const pr = await openPullRequest({
      spec: body.pullRequest,
      token: body.repo.token,
      branch: run.branch,
      baseBranch: body.repo.baseBranch,
      briefing: findings.briefing,
      report: renderPrReport({
        ...(findings.install?.outcome ? { install: findings.install.outcome } : {}),
        ...(salvage ? { salvage } : {}),
        ...(findings.reproduction ? { reproduction: findings.reproduction } : {}),
        ...(findings.validation ? { validation: findings.validation } : {}),
      }),
      scrub: (text) => run.redactor.scrub(text),
      signal: run.signal,
    });
    findings.report.prUrl = pr.prUrl;
    findings.report.pullRequest = { number: pr.number, created: pr.created, refreshed: pr.refreshed };
  } catch (error) {
    if (!(error instanceof PullRequestError)) throw error;
    throw new JobFailure("pr-failed", error.message, {
      pr: { status: error.status ?? null },
      branch: run.branch,
      headSha: findings.report.headSha ?? null,
    });
  }
}
