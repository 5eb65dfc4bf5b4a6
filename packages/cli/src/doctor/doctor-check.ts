/** How one check came out. */
export type DoctorStatus = "ok" | "missing" | "fail";

/** One line of `castellan doctor`. */
export interface DoctorCheck {
  /** What was checked, e.g. `bwrap` or `sandbox confined`. */
  readonly check: string;
  readonly status: DoctorStatus;
  /** What was found: a path, a version, `set` / `not set`, or the cause of a failure. */
  readonly detail: string;
  /** What to do when the status is not ok. */
  readonly fix?: string;
  /** Whether plain `castellan` needs this check ok (the sandbox and one provider). */
  readonly required: boolean;
}
