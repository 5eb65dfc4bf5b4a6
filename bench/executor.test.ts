// Smoke test of the executor bench at a tiny size: 2 jobs of 4 turns of 10 ms, 1 s of idle
// polling; a report with finite figures and both target lines. Timing is not asserted.
// Skipped, saying so, where the sandbox's programs are absent; under CI that fails instead.
import { expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../test-support/system-programs.ts";
import { formatExecutorBenchReport, runExecutorBench } from "./support/executor/bench.ts";

describeNeeding(osSandboxPrograms, "the executor bench", () => {
  it("runs 2 jobs and prints its figures, the ratio and the targets", async () => {
    const report = await runExecutorBench({ jobs: 2, turns: 4, turnMs: 10, idleMs: 1_000, limitMs: 120_000 });
    expect(report.succeeded).toBe(2);
    for (const value of [
      report.idle.p50,
      report.idle.p99,
      report.load.p50,
      report.load.p99,
      report.floor.p99,
      report.loadMs,
    ]) {
      expect(Number.isFinite(value) && value > 0).toBe(true);
    }
    expect(report.idle.polls).toBeGreaterThan(0);
    expect(report.load.polls).toBeGreaterThan(0);
    expect(report.floor.polls).toBeGreaterThan(0);
    expect([report.idle.errors, report.load.errors, report.floor.errors]).toEqual([0, 0, 0]);
    expect(report.rss.idle).toBeGreaterThan(0);
    expect(report.rss.peak).toBeGreaterThan(0);
    const text = formatExecutorBenchReport(report);
    expect(text).toMatch(/poll p99 under load \/ idle +\d+\.\d+x +\(<= 5\) (PASS|MISS)/);
    expect(text).toMatch(/poll p99 under load +\d+\.\d+ ms +\(< 50 ms\) (PASS|MISS)/);
    expect(text).toMatch(/event-loop delay p99 +\d+\.\d+ ms/);
    expect(text).toMatch(/poll latency, floor +p50 +\d+\.\d+ ms +p99 +\d+\.\d+ ms/);
    expect(text).toMatch(/server RSS +idle \d+\.\d MiB, peak \d+\.\d MiB, per job \d+\.\d MiB/);
    expect(text).not.toMatch(/NaN|Infinity/);
  }, 180_000);
});
