// Smoke test of the turn-loop bench at a small size: it runs end to end and reports finite
// figures. Timing is not asserted.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSessionStore } from "@castellan/node-runner";
import { afterEach, describe, expect, it } from "vitest";
import { defaultOptions, runBench } from "./support/bench.ts";
import { benchAgent, runCastellanLoop } from "./support/castellan-loop.ts";
import { runHandWrittenLoop } from "./support/hand-loop.ts";
import { measureReopen } from "./support/reopen.ts";
import { formatReport } from "./support/report.ts";
import { summarize, type WindowStats } from "./support/stats.ts";

const turns = 30;
// One session-open and one run-start; per tool-call turn the answer, the batch's start, the
// call's intent and receipt, and the batch's end (with the state change, when there is one);
// then the final answer and run-end.
const records = 2 + 5 * (turns - 1) + 2;

function expectFiniteStats(stats: WindowStats, runs: number) {
  expect(Number.isFinite(stats.median) && stats.median >= 0).toBe(true);
  expect(Number.isFinite(stats.mean) && stats.mean >= 0).toBe(true);
  expect(stats.samples).toBe(runs * (stats.window.to - stats.window.from + 1));
}

describe("the turn-loop bench", () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it("times every turn of the hand-written loop and of a Castellan Run", async () => {
    const hand = await runHandWrittenLoop(turns);
    expect(hand.durations).toHaveLength(turns);
    expect(hand.text).toBe(`done after ${turns} turns`);

    directory = await mkdtemp(join(tmpdir(), "castellan-bench-test-"));
    const store = createFileSessionStore({ directory });
    const run = await runCastellanLoop({ turns, store, sessionId: "smoke" });
    expect(run.turns).toBe(turns);
    expect(run.text).toBe(`done after ${turns} turns`);
    expect(run.durations).toHaveLength(turns);
    expect(run.durations.every((ms) => Number.isFinite(ms) && ms >= 0)).toBe(true);
    expect(run.stateWrites).toBe(0);
    expect(run.ticks).toBeUndefined();

    const stateful = await runCastellanLoop({ turns, store, sessionId: "smoke-state", state: true });
    expect(stateful.turns).toBe(turns);
    expect(stateful.durations).toHaveLength(turns);
    // A state write committed in every tool-call turn.
    expect(stateful.stateWrites).toBe(turns - 1);
    expect(stateful.ticks).toBe(turns - 1);
    const saved = (await readFile(join(directory, "smoke-state.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).record);
    const commits = saved.filter((record) => record.kind === "tool-batch-end" && record.changes !== undefined);
    expect(commits.map((record) => record.changes.ticks)).toEqual(Array.from({ length: turns - 1 }, (_, i) => i + 1));

    const summary = summarize([hand, run], { from: 2, to: 8 }, { from: 20, to: 29 });
    expectFiniteStats(summary.early, 2);
    expectFiniteStats(summary.late, 2);

    const reopen = await measureReopen({
      agent: benchAgent(turns, { state: true }),
      store,
      sessionId: "smoke-state",
      logPath: join(directory, "smoke-state.jsonl"),
      repeats: 2,
    });
    expect(reopen.records).toBe(records);
    expect(Number.isFinite(reopen.openMs) && Number.isFinite(reopen.rawMs)).toBe(true);
  });

  it("runs the whole bench and formats its report", async () => {
    const report = await runBench({
      ...defaultOptions(turns),
      runs: 2,
      warmupTurns: 5,
      early: { from: 2, to: 8 },
      reopenRepeats: 2,
    });
    const summaries = [
      report.handWritten,
      report.memoryStore,
      report.fileStore,
      report.memoryStoreState,
      report.fileStoreState,
    ];
    for (const summary of summaries) {
      expect(summary.runs).toBe(2);
      expectFiniteStats(summary.early, 2);
      expectFiniteStats(summary.late, 2);
      expect(summary.late.window).toEqual({ from: 19, to: 29 });
      expect(Number.isFinite(summary.ratio) && Number.isFinite(summary.totalMs)).toBe(true);
    }
    expect(Number.isFinite(report.overhead.early) && Number.isFinite(report.overhead.late)).toBe(true);
    expect(report.reopen.records).toBe(records);
    expect(report.memory.map((entry) => entry.phase)).toEqual([
      "start",
      "warm-up",
      "hand-written",
      "memory store",
      "file store",
      "memory store + state",
      "file store + state",
      "reopen",
    ]);
    expect(report.peakRssMiB).toBeGreaterThan(0);

    const text = formatReport(report);
    expect(text).toContain("turns 2-8");
    expect(text).toContain("turns 19-29");
    expect(text).toMatch(/castellan, memory store .*(PASS|MISS)/);
    expect(text).toMatch(/castellan, file store .*(PASS|MISS)/);
    expect(text).toMatch(/castellan \+ state, memory store .*(PASS|MISS)/);
    expect(text).toMatch(/castellan \+ state, file store .*(PASS|MISS)/);
    expect(text).toMatch(new RegExp(`reopen \\(file store \\+ state, ${records} records.*(PASS|MISS)`));
    expect(text).not.toMatch(/NaN|Infinity/);
  });
});
