import { ExecutorRequestError } from "../errors/errors.js";

/** What a job id may be: a letter or digit, then up to 127 of letters, digits, `.`, `_` and `-`. */
export const jobIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** True for a well-formed job id (so `..`, `a/b` and an empty id never name a directory). */
export function isJobId(value: unknown): value is string {
  return typeof value === "string" && jobIdPattern.test(value);
}

/** The job id of a route segment, decoded once; `invalid-job-id` for anything else. */
export function jobIdOfSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new ExecutorRequestError("executor_invalid_job_id", "The job id in the path is not valid.");
  }
  if (!isJobId(decoded) || decoded !== segment) {
    throw new ExecutorRequestError(
      "executor_invalid_job_id",
      "A job id is 1-128 characters of letters, digits, '.', '_' and '-', starting with a letter or digit.",
    );
  }
  return decoded;
}
