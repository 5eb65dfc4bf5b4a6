// Smoke test of the commands bench at a tiny size: 3 latency runs per subject and an 8 MiB
// drain through every subject, a report with finite figures and every target line. Timing is
// not asserted. Skipped, saying so, where bwrap, socat or rg is absent; under CI that fails.

import { expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms, programPath } from "../test-support/system-programs.ts";
import { runCommandsBench } from "./support/commands/bench.ts";
import { formatCommandsBenchReport } from "./support/commands/report.ts";
import { subjectNames } from "./support/commands/subjects.ts";

describeNeeding(osSandboxPrograms, "the commands bench", () => {
  it("runs every subject small and prints its figures and targets", async () => {
    const report = await runCommandsBench({
      runs: 3,
      drainBytes: 8 * 1024 * 1024,
      bwrap: programPath("bwrap") as string,
    });
    for (const name of subjectNames) {
      const figures = report.subjects[name];
      for (const value of [figures.latencyMs, figures.drainMs, figures.throughput]) {
        expect(Number.isFinite(value) && value > 0, name).toBe(true);
      }
      expect(figures.rssGrowth).toBeGreaterThanOrEqual(0);
    }
    expect(Number.isFinite(report.floorLatencyMs) && report.floorLatencyMs > 0).toBe(true);
    const text = formatCommandsBenchReport(report);
    expect(text).toMatch(/supervisor latency \/ bare spawn +\d+\.\d+x +\(<= 1\.5\) (PASS|MISS)/);
    expect(text).toMatch(/workspace worker latency \/ bwrap floor +\d+\.\d+x +\(<= 3\) (PASS|MISS)/);
    expect(text).toMatch(/sandbox plugin drain \/ bare spawn +\d+\.\d+x +\(<= 2\) (PASS|MISS)/);
    expect(text).not.toMatch(/NaN|Infinity/);
  }, 120_000);
});
