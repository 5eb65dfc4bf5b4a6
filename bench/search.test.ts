// Smoke test of the search bench at a tiny size: it generates its tree, runs the literal
// section over it and over a small directory, prints a report, and removes the tree. Timing
// is not asserted.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defaultSearchBenchOptions, runSearchBench } from "./support/search/bench.ts";
import { formatSearchBenchReport } from "./support/search/report.ts";

describe("the search bench", () => {
  it("runs its literal section on a tiny tree and prints the figures", async () => {
    const trees: (string | undefined)[] = [];
    const repository = fileURLToPath(new URL("./support/", import.meta.url)).replace(/\/$/, "");
    const report = await runSearchBench({
      ...defaultSearchBenchOptions(repository),
      size: { files: 60, bytes: 300_000 },
      rounds: 1,
      minimumFreeBytes: 16 * 1024 * 1024,
      onTree: (directory) => trees.push(directory),
    });
    expect(trees[0]).toBeDefined();
    expect(trees.at(-1)).toBeUndefined();
    expect(existsSync(trees[0]!)).toBe(false);
    expect(report.tree.files).toBe(60);
    const results = report.literal!;
    expect(Object.keys(results)).toEqual(["generated tree", "repository"]);
    for (const corpus of Object.values(results)) {
      expect(corpus.map((result) => result.name)).toEqual(["rare", "common", "absent", "multi-word"]);
      for (const result of corpus) {
        for (const ms of Object.values(result.engineMs)) expect(Number.isFinite(ms) && ms > 0).toBe(true);
      }
    }
    expect(results["generated tree"]!.find((result) => result.name === "absent")!.hits).toBe(0);
    const text = formatSearchBenchReport(report);
    expect(text).toContain("generated tree");
    expect(text).toMatch(report.ripgrepVersion ? /rare .*(PASS|MISS)/ : /no rg/);
    expect(text).not.toMatch(/NaN|Infinity/);
  });
});
