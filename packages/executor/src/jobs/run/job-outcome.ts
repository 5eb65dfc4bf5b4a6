import type { JsonValue } from "@castellan/harness";
import { errorMessage } from "@castellan/harness";
import { SandboxUnavailableError } from "@castellan/node-runner";
import { GitCommandError } from "../../git/git.js";
import type { ServerMeasurements } from "../../inventory/measurements.js";
import type { Redactor } from "../../log/redactor.js";
import { JobFailure } from "../../registry/job-failure.js";
import type { JobOutcome } from "../../registry/job-registry.js";
import { sandboxVerdictOfError } from "../../sandbox/sandbox-probe.js";
import type { JobWatch } from "../../watch/job-watch.js";
import type { StoppedPass } from "./pass-runner.js";

/** What a failed job's outcome is made from beside the error: whatever the run had found by then. */
export interface FailureContext {
  readonly redactor: Redactor;
  readonly signal: AbortSignal;
  readonly watch?: JobWatch;
  readonly stopped: StoppedPass;
  readonly coldStart?: number | undefined;
  readonly refusedGitConfig?: readonly JsonValue[];
  readonly measurements?: ServerMeasurements;
}

/**
 * The outcome of a job whose phases threw: a watchdog's kill first, then a stop (`aborted`,
 * with what salvage and the last checkpoint kept), then a step's own failure, else
 * `git-failed` or `agent-failed`. A cold start and the refused git config are folded into the
 * evidence; every message and evidence is scrubbed.
 */
export function failedOutcome(error: unknown, context: FailureContext): JobOutcome {
  const { redactor } = context;
  const failed = (code: string, message: string, evidence?: JsonValue): JobOutcome => {
    const extra = {
      ...(context.coldStart !== undefined ? { coldStart: { afterMs: context.coldStart } } : {}),
      ...(context.refusedGitConfig && context.refusedGitConfig.length > 0
        ? { refusedGitConfig: [...context.refusedGitConfig] }
        : {}),
    };
    const folded =
      Object.keys(extra).length === 0
        ? evidence
        : ({ ...(evidence as Record<string, JsonValue> | undefined), ...extra } as unknown as JsonValue);
    return {
      error: {
        code,
        message: redactor.scrub(message),
        ...(folded !== undefined ? { evidence: redactor.scrubJson(folded) } : {}),
      },
    };
  };
  const killed = context.watch?.failure;
  if (killed) return failed(killed.code, killed.message, killed.evidence);
  if (context.signal.aborted) {
    return {
      error: {
        code: "aborted",
        message: "The job was stopped.",
        ...redactor.scrubJson(stoppedEvidence(context.stopped)),
      },
    };
  }
  const failure = jobFailureOf(error, context.measurements);
  if (failure) return failed(failure.code, failure.message, failure.evidence);
  return failed(error instanceof GitCommandError ? "git-failed" : "agent-failed", errorMessage(error));
}

/** What a job stopped mid-pass kept, for its `aborted` error: salvage, then the last checkpoint. */
function stoppedEvidence(stopped: StoppedPass): { evidence?: JsonValue } {
  if (Object.keys(stopped).length === 0) return {};
  return { evidence: { stopped: stopped as unknown as JsonValue } };
}

/**
 * A step's own failure: a `JobFailure`, or a sandbox that refused to open for the pass (the
 * same decided negative the live check fails a job on, recorded for `/health`).
 */
function jobFailureOf(error: unknown, measurements: ServerMeasurements | undefined): JobFailure | undefined {
  if (error instanceof JobFailure) return error;
  if (!(error instanceof SandboxUnavailableError)) return undefined;
  const verdict = sandboxVerdictOfError(error);
  measurements?.recordSandbox(verdict);
  if (verdict.state !== "unusable") return undefined;
  return new JobFailure("sandbox-unavailable", `The OS sandbox is unusable for this job: ${verdict.reason}.`, {
    sandbox: { verdict: verdict.state, reason: verdict.reason },
  });
}
