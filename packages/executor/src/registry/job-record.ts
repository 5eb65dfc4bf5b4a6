import type { JsonValue } from "@castellan/harness";

/** Where a job stands. `interrupted`: the server stopped (or died) while it was queued or running. */
export type JobState = "queued" | "running" | "succeeded" | "failed" | "cancelled" | "interrupted";

/** Every job state, in the order a job may pass them. */
export const jobStates: readonly JobState[] = Object.freeze([
  "queued",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "interrupted",
]);

/** The states a job never leaves (an `interrupted` one is resumed by a replay, as a new run of the same job). */
export const terminalStates: ReadonlySet<JobState> = new Set(["succeeded", "failed", "cancelled", "interrupted"]);

/** The step a running job is in. */
export type JobPhase = "clone" | "install" | "agent" | "salvage" | "reproduction" | "validation" | "push" | "pr";

/** The agent's task list, counted. */
export interface JobProgress {
  readonly completed: number;
  readonly inProgress: number;
  readonly total: number;
}

/** Why a job failed: a stable code, a message scrubbed of credentials, and what was seen. */
export interface JobError {
  readonly code: string;
  readonly message: string;
  readonly evidence?: JsonValue;
  /** Every model call of the job (on a job's final error). */
  readonly callMetrics?: JsonValue;
}

/** The route a job was submitted on (`POST /<route>`): its kind's, as the kinds' table names it. */
export type JobRoute = string;

/** What `job.json` holds: everything about a job but its credentials. */
export interface JobRecord {
  readonly formatVersion: 1;
  readonly jobId: string;
  readonly route: JobRoute;
  readonly kind: string;
  /** The body's identity (see `jobIdentity`): a replay must match it. */
  readonly identity: string;
  readonly state: JobState;
  readonly phase?: JobPhase;
  readonly pass?: string;
  readonly progress?: JobProgress;
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly endedAt?: string;
  /** Set on a run that resumed an interrupted one: how many resumes, and where the last stop was. */
  readonly resumedFrom?: { readonly count: number; readonly lastPhase: JobPhase | null };
  /** The base branch's commit the job's first clone got (a resumed run fetches it again). */
  readonly baseSha?: string;
  readonly diagnostics?: { readonly coldStart?: { readonly afterMs: number } };
  readonly result?: JsonValue;
  readonly error?: JobError;
  /** The submitted body without its credential values. */
  readonly body: JsonValue;
}

/** What a driver sees of a job (`GET /jobs/{id}` adds the drained telemetry). */
export type JobSummary = Omit<JobRecord, "formatVersion" | "identity" | "body" | "route">;

/** The summary of a record. */
export function summaryOf(record: JobRecord): JobSummary {
  const { formatVersion: _version, identity: _identity, body: _body, route: _route, ...summary } = record;
  return summary;
}
