import { executorVersion } from "../config/executor-version.js";
import type { HealthMeasurement } from "../inventory/measurements.js";
import { jobKindNames } from "../jobs/kinds.js";

/** The optional body fields this build serves. */
export const servedOptionalFields = [
  "network",
  "proxyPhasePath",
  "tuning",
  "dependencyInstall",
  "validationChecks",
  "reproduction",
  "skills",
  "mcpServers",
  "referenceScreenshots",
  "designImages",
  "artifactUpload",
  "packageRegistries",
  "pullRequest",
] as const;

/** What `GET /health` answers: liveness and what the server knows of itself, never job data. */
export interface HealthView {
  readonly status: "ok";
  readonly version: string;
  readonly kinds: readonly string[];
  readonly capabilities: readonly string[];
  readonly sandbox: { readonly boot: HealthMeasurement; readonly last: HealthMeasurement };
  readonly egress: { readonly target: string | null; readonly last: HealthMeasurement };
}

/** The health view from what the server has measured so far (it never measures to answer). */
export function healthView(state: {
  readonly sandboxBoot: HealthMeasurement;
  readonly sandboxLast: HealthMeasurement;
  readonly egressTarget: string | undefined;
  readonly egressLast: HealthMeasurement;
}): HealthView {
  return {
    status: "ok",
    version: executorVersion,
    kinds: jobKindNames,
    capabilities: servedOptionalFields,
    sandbox: { boot: state.sandboxBoot, last: state.sandboxLast },
    egress: { target: state.egressTarget ?? null, last: state.egressLast },
  };
}
