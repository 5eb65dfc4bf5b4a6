import type { JsonValue } from "@castellan/harness";

/** A step of a job that failed it with a job error code of its own (e.g. `sandbox-unavailable`). */
export class JobFailure extends Error {
  /** The kebab-case code the job's `error.code` carries. */
  readonly code: string;
  readonly evidence: JsonValue | undefined;

  constructor(code: string, message: string, evidence?: JsonValue) {
    super(message);
    this.name = "JobFailure";
    this.code = code;
    this.evidence = evidence;
  }
}
