import type { InstallOutcome } from "../install/dependency-install.js";
import type { ReproductionReport } from "../reproduction/reproduction.js";
import type { SalvageOutcome } from "../salvage/salvage.js";
import type { ValidationReport } from "../validation/validation.js";

/**
 * The server's own report for the pull request's report region: how the install, the
 * reproduction proof and validation ended, and what salvage committed or withheld. Facts
 * only, no output (that stays in the job's result).
 */
export function renderPrReport(report: {
  readonly install?: InstallOutcome;
  readonly reproduction?: ReproductionReport;
  readonly validation?: ValidationReport;
  readonly salvage?: SalvageOutcome;
}): string {
  const lines = ["### Castellan executor report"];
  if (report.install) lines.push(`- Dependency install: ${report.install.status} (exit ${report.install.exitCode}).`);
  if (report.reproduction) {
    const { outcome, reason, attempts } = report.reproduction;
    lines.push(
      `- Reproduction proof: ${outcome}${reason ? ` (${reason})` : ""} after ${attempts.length} attempt${attempts.length === 1 ? "" : "s"}.`,
    );
  }
  if (report.validation) {
    const last = report.validation.rounds.at(-1)?.checks ?? [];
    lines.push(
      `- Validation: ${report.validation.passed ? "passed" : "failed"} in round ${report.validation.rounds.length}: ${last.map((check) => `${check.name} (exit ${check.exitCode})`).join(", ") || "no checks ran"}.`,
    );
  }
  if (report.salvage && report.salvage.committed.length > 0) {
    lines.push(
      `- The server committed ${report.salvage.committed.length} path(s) the agent left uncommitted (salvage).`,
    );
  }
  if (report.salvage && report.salvage.withheldCredentials.length > 0) {
    lines.push(
      `- Withheld as credentials, never committed: ${report.salvage.withheldCredentials.map((path) => `\`${path}\``).join(", ")}.`,
    );
  }
  return lines.join("\n");
}
