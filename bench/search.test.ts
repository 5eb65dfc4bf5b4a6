// Smoke test of the search bench at a tiny size: it generates its tree, runs the literal
// section over it and over a small directory, runs the deep-read section on a file of 2,000
// lines (reading from line 1,500, with its memory measured in a child process), prints a
// report, and removes everything it wrote. Timing is not asserted.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defaultSearchBenchOptions, runSearchBench } from "./support/search/bench.ts";
import { formatSearchBenchReport } from "./support/search/report.ts";

describe("the search bench", () => {
  it("runs its literal and deep-read sections at a tiny size and prints the figures", async () => {
    const trees: (string | undefined)[] = [];
    const repository = fileURLToPath(new URL("./support/", import.meta.url)).replace(/\/$/, "");
    const report = await runSearchBench({
      ...defaultSearchBenchOptions(repository),
      size: { files: 60, bytes: 300_000 },
      deepRead: { lines: 2_000, startLine: 1_500 },
      rounds: 1,
      minimumFreeBytes: 16 * 1024 * 1024,
      onTree: (directory) => trees.push(directory),
    });
    expect(trees[0]).toBeDefined();
    expect(trees.at(-1)).toBeUndefined();
    expect(existsSync(trees[0]!)).toBe(false);
    expect(report.tree!.files).toBe(60);
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
    const deepRead = report.deepRead!;
    expect(deepRead).toMatchObject({ lines: 2_000, startLine: 1_500 });
    for (const figure of [deepRead.toolMs, deepRead.sedMs, deepRead.sedStartMs, deepRead.ratio.value]) {
      expect(Number.isFinite(figure) && figure > 0).toBe(true);
    }
    expect(Number.isFinite(deepRead.rssGrowth.value) && deepRead.rssGrowth.value >= 0).toBe(true);
    expect(text).toContain("deep read: read_workspace_file at startLine 1500");
    expect(text).toMatch(/tool\/sed +\d+\.\d+x (PASS|MISS)/);
    expect(text).toMatch(/peak RSS growth of the read +\d+\.\d MiB (PASS|MISS)/);
    expect(text).not.toMatch(/NaN|Infinity/);
  });

  it("runs only the sections it is given", async () => {
    const report = await runSearchBench({
      ...defaultSearchBenchOptions(undefined),
      sections: ["deep-read"],
      deepRead: { lines: 2_000, startLine: 1_500 },
      rounds: 1,
      minimumFreeBytes: 16 * 1024 * 1024,
    });
    expect(report.tree).toBeUndefined();
    expect(report.literal).toBeUndefined();
    expect(report.deepRead!.bytes).toBeGreaterThan(2_000 * 20);
    const text = formatSearchBenchReport(report);
    expect(text).toContain("no tree");
    expect(text).not.toContain("literal search");
    expect(text).not.toMatch(/NaN|Infinity/);
  });
});
