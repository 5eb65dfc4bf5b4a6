// Smoke test of the store-growth bench at a small size: the store-alone loop writes the log a
// Run would, and the whole bench runs end to end and reports finite figures. Timing is not
// asserted.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSessionStore, createMemorySessionStore } from "@castellan/node-runner";
import { afterEach, describe, expect, it } from "vitest";
import { runAppendLoop } from "./support/store-growth/append-loop.ts";
import { lateWindow, layers, runStoreGrowthBench } from "./support/store-growth/bench.ts";
import { formatStoreGrowthReport } from "./support/store-growth/report.ts";

const turns = 30;
// The opening and run-start; five records per tool-call turn; the final answer and run-end.
const records = 2 + 5 * (turns - 1) + 2;

let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

describe("the store-growth bench", () => {
  it("appends a Run's records the way the Runner does, and the log reopens with all of them", async () => {
    directory = await mkdtemp(join(tmpdir(), "castellan-bench-store-test-"));
    for (const store of [createMemorySessionStore(), createFileSessionStore({ directory })]) {
      const run = await runAppendLoop({ store, sessionId: "smoke", turns });
      expect(run.records).toBe(records);
      expect(run.durations).toHaveLength(turns);
      expect(run.calls).toHaveLength(turns);
      expect([...run.durations, ...run.calls].every((ms) => Number.isFinite(ms) && ms >= 0)).toBe(true);
      const reopened = await store.open("smoke");
      expect(reopened.records).toHaveLength(records);
      expect(reopened.records.at(-1)).toMatchObject({ kind: "run-end", status: "completed" });
      await reopened.close();
    }
  });

  it("runs every layer at two sizes and formats its report", async () => {
    const sizes = [{ turns }, { turns: turns + 10 }];
    const progress: string[] = [];
    const report = await runStoreGrowthBench({
      layers,
      sizes,
      repeats: 1,
      warmups: 0,
      placement: "child-process",
      early: { from: 2, to: 8 },
      progress: (message) => progress.push(message),
    });
    expect(progress).toHaveLength(layers.length);
    expect(report.results.map((result) => result.layer)).toEqual(layers);
    for (const result of report.results) {
      expect(result.sizes.map((size) => size.turns)).toEqual(sizes.map((size) => size.turns));
      for (const size of result.sizes) {
        for (const store of [size.memory, size.file]) {
          expect(store.perTurn.runs).toBe(1);
          expect(store.perTurn.early.samples).toBe(7);
          expect(store.perTurn.late.window).toEqual(lateWindow(size.turns));
          expect(Number.isFinite(store.perTurn.ratio) && store.wholePerTurnMs > 0).toBe(true);
          expect(store.waits.early.samples).toBe(7);
          expect(Number.isFinite(store.waits.ratio)).toBe(true);
          expect(store.calls !== undefined).toBe(result.layer === "store");
        }
        expect(Number.isFinite(size.extra.early) && Number.isFinite(size.extra.late)).toBe(true);
      }
    }

    const text = formatStoreGrowthReport(report);
    for (const name of ["store alone", "runner, instant model", "runner, openai-compatible"]) {
      expect(text).toMatch(new RegExp(`\\n${name} +${turns} .*(PASS|MISS).*(PASS|MISS)`));
    }
    expect(text).toContain("time inside the append calls");
    expect(text).toMatch(/the wait on the store per turn[\s\S]*\nrunner, openai-compatible +\d+ +\S+ us ->/);
    expect(text).toContain(`late window at N=${turns + 10}: turns ${turns - 1}-${turns + 9}`);
    expect(text).not.toMatch(/NaN|Infinity/);
  });
});
