import type { EgressVerdict } from "../egress/egress-probe.js";
import type { SandboxVerdict } from "../sandbox/sandbox-probe.js";

/** A check as `/health` shows it: `unmeasured`, or the last verdict with its time and reason. */
export type HealthMeasurement =
  | "unmeasured"
  | { readonly verdict: string; readonly at: string; readonly reason?: string };

/**
 * What the server has measured of its sandbox and egress: the boot record and the last live
 * check of a job. Read by `/health`, which never measures; holds no job data.
 */
export class ServerMeasurements {
  sandboxBoot: HealthMeasurement = "unmeasured";
  sandboxLast: HealthMeasurement = "unmeasured";
  egressLast: HealthMeasurement = "unmeasured";

  /** Records a job's live sandbox check. */
  recordSandbox(verdict: SandboxVerdict): void {
    this.sandboxLast = measurement(verdict.state, "reason" in verdict ? verdict.reason : undefined);
  }

  /** Records a job's egress check (a check not carried out included). */
  recordEgress(verdict: EgressVerdict): void {
    if (verdict.state === "not-measured") return;
    this.egressLast = measurement(verdict.state, "reason" in verdict ? verdict.reason : undefined);
  }
}

/** A measurement taken now. */
export function measurement(
  verdict: string,
  reason?: string,
  at: string = new Date().toISOString(),
): HealthMeasurement {
  return { verdict, at, ...(reason !== undefined ? { reason } : {}) };
}
