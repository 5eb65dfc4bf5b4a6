// The commands bench's printed report: every figure with its ratio to its baseline, and each
// target as PASS or MISS.
import type { CommandsBenchReport } from "./bench.ts";
import { subjectNames } from "./subjects.ts";

/** The targets: ratios to the baseline named beside each. */
export const commandsTargets = {
  unsandboxedLatency: 1.5,
  unsandboxedDrain: 1.5,
  sandboxedDrain: 2,
  sandboxedLatencyOverFloor: 3,
  rssGrowthBytes: 100 * 1024 * 1024,
} as const;

const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");
const ms = (value: number) => `${value.toFixed(2)} ms`;
const ratio = (value: number) => `${value.toFixed(2)}x`;
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

export function formatCommandsBenchReport(report: CommandsBenchReport): string {
  const bare = report.subjects["bare spawn"];
  const lines = [
    `commands bench: printf x latency (median of ${report.runs}), drain of ${mib(report.drainBytes)}`,
    "",
    `${"subject".padEnd(18)}${"latency".padStart(12)}${"vs bare".padStart(10)}${"drain".padStart(13)}${"vs bare".padStart(10)}${"MiB/s".padStart(9)}${"RSS growth".padStart(13)}`,
  ];
  for (const name of subjectNames) {
    const figures = report.subjects[name];
    lines.push(
      `${name.padEnd(18)}${ms(figures.latencyMs).padStart(12)}${ratio(figures.latencyMs / bare.latencyMs).padStart(10)}${ms(figures.drainMs).padStart(13)}${ratio(figures.drainMs / bare.drainMs).padStart(10)}${figures.throughput.toFixed(0).padStart(9)}${mib(figures.rssGrowth).padStart(13)}`,
    );
  }
  lines.push(`${"bwrap floor".padEnd(18)}${ms(report.floorLatencyMs).padStart(12)}`, "", "targets:");
  const supervisor = report.subjects.supervisor;
  const check = (label: string, value: number, limit: number, shown: string) =>
    lines.push(`  ${label.padEnd(52)}${shown.padStart(10)}  (<= ${limit}) ${verdict(value <= limit)}`);
  check(
    "supervisor latency / bare spawn",
    supervisor.latencyMs / bare.latencyMs,
    commandsTargets.unsandboxedLatency,
    ratio(supervisor.latencyMs / bare.latencyMs),
  );
  check(
    "supervisor drain / bare spawn",
    supervisor.drainMs / bare.drainMs,
    commandsTargets.unsandboxedDrain,
    ratio(supervisor.drainMs / bare.drainMs),
  );
  for (const name of ["sandbox plugin", "workspace worker"] as const) {
    const figures = report.subjects[name];
    check(
      `${name} drain / bare spawn`,
      figures.drainMs / bare.drainMs,
      commandsTargets.sandboxedDrain,
      ratio(figures.drainMs / bare.drainMs),
    );
    check(
      `${name} latency / bwrap floor`,
      figures.latencyMs / report.floorLatencyMs,
      commandsTargets.sandboxedLatencyOverFloor,
      ratio(figures.latencyMs / report.floorLatencyMs),
    );
  }
  for (const name of subjectNames) {
    const growth = report.subjects[name].rssGrowth;
    lines.push(
      `  ${`${name} peak RSS growth while draining`.padEnd(52)}${mib(growth).padStart(10)}  (< 100 MiB) ${verdict(growth < commandsTargets.rssGrowthBytes)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
