// Smoke test of the browser bench at N = 2 (no warm-ups): a report with finite figures and the
// three ratio lines. Timing is not asserted. Skipped, saying so, where Chromium is absent;
// under CI a missing Chromium fails.
import { expect, it } from "vitest";
import { describeNeeding, programPath } from "../test-support/system-programs.ts";
import { browserBenchActions, formatBrowserBenchReport, runBrowserBench } from "./support/browser/bench.ts";

describeNeeding(["chromium"], "the browser bench", () => {
  it("runs 2 rounds of each action and prints both sides and the ratios", async () => {
    const executablePath = programPath("chromium");
    const report = await runBrowserBench({ rounds: 2, warmups: 0, rows: 20, executablePath });
    for (const action of browserBenchActions) {
      const { castellan, raw } = report.actions[action];
      for (const value of [castellan.median, castellan.p95, raw.median, raw.p95]) {
        expect(Number.isFinite(value) && value > 0).toBe(true);
      }
    }
    const text = formatBrowserBenchReport(report);
    for (const action of browserBenchActions) expect(text).toContain(`${action}\n`);
    expect(text.match(/ratio of medians +\d+\.\d+x +\(<= 1\.5\) (PASS|MISS)/g)).toHaveLength(3);
    expect(text).not.toMatch(/NaN|Infinity/);
  }, 120_000);
});
