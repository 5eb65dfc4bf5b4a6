// Smoke test of the start-up bench: every probe runs end to end from a fresh process and the
// report names each against Node's own start. Timing is not asserted.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatStartup, measureStartup, startupProbes } from "./support/startup/measure.ts";

const root = fileURLToPath(new URL("../", import.meta.url));

describe("the start-up bench", () => {
  it("runs every probe and reports it beside node -e 0", async () => {
    const report = await measureStartup(root, 1);
    const probes = Object.keys(startupProbes);
    expect(Object.keys(report.medians).sort()).toEqual([...probes].sort());
    for (const probe of probes) {
      const ms = report.medians[probe as keyof typeof startupProbes];
      expect(Number.isFinite(ms) && ms > 0).toBe(true);
    }
    const text = formatStartup(report);
    for (const probe of probes.filter((probe) => probe !== "node")) {
      expect(text).toMatch(new RegExp(`\\(${probe}\\).* over node: (PASS|MISS)`));
    }
  });
});
