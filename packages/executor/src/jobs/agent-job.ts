import type { JobOutcome, JobRunner, JobWork } from "../registry/job-registry.js";
import { type JobKindBodies, type JobKindName, jobKinds } from "./kinds.js";
import type { AgentJobOptions } from "./run/agent-job-options.js";

export type { AgentJobOptions } from "./run/agent-job-options.js";
export { maxSummaryBytes } from "./run/job-kind.js";
export { retainedMarker } from "./run/job-setup.js";

/**
 * The server's job runner: the work's kind's row of the table (`jobs/kinds.ts`) runs it, phase
 * by phase. Resolves `{ result }` or `{ error }` with a scrubbed message; the checkout and
 * secrets never outlive the job.
 */
export function agentJob(options: AgentJobOptions): JobRunner<JobKindBodies> {
  return (work) => runKind(work, options);
}

/** One job on its kind's row: the kind names the row, and the row's body type is the work's. */
function runKind<Name extends JobKindName>(
  work: JobWork<Pick<JobKindBodies, Name>>,
  options: AgentJobOptions,
): Promise<JobOutcome> {
  return jobKinds[work.kind].run(work, work.body, options);
}
