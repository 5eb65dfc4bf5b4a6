// Smoke test of the MCP bench at a tiny size: 20 calls and 2 opens each side, finite figures,
// both target lines. Timing is not asserted.
import { describe, expect, it } from "vitest";
import { formatMcpBenchReport, runMcpBench } from "./support/mcp/bench.ts";

describe("the MCP bench", () => {
  it("measures calls and opens beside the bare SDK and prints the ratios", async () => {
    const report = await runMcpBench({ calls: 20, opens: 2 });
    for (const figures of [
      report.call.castellan,
      report.call.tool,
      report.call.bare,
      report.open.castellan,
      report.open.bare,
    ]) {
      expect(Number.isFinite(figures.p50) && figures.p50 > 0).toBe(true);
      expect(figures.p99).toBeGreaterThanOrEqual(figures.p50);
    }
    const text = formatMcpBenchReport(report);
    expect(text).toMatch(
      /echo, 20 sequential calls, the mcp\(\) tool alone[\s\S]*p50 ratio \d+\.\d+x \(<= 1\.25\) (PASS|MISS)/,
    );
    expect(text).toMatch(/open, 2 rounds[\s\S]*p50 ratio \d+\.\d+x \(<= 1\.2\) (PASS|MISS)/);
    expect(text).not.toMatch(/NaN|Infinity/);
  }, 120_000);
});
