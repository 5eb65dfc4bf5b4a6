// The printed table.
import { type BenchReport, targets } from "./bench.ts";
import type { LoopSummary, WindowStats } from "./stats.ts";

/** A duration in ms, shown in us below 1 ms. */
export function formatDuration(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(1)} us` : `${ms.toFixed(2)} ms`;
}

const perTurn = (stats: WindowStats) => `${formatDuration(stats.median)} (${formatDuration(stats.mean)})`;
const times = (ratio: number) => `${ratio.toFixed(2)}x`;
const verdict = (ratio: number, limit: number) => `${ratio <= limit ? "PASS" : "MISS"} (<= ${limit}x)`;

/** The report as text: per-turn times and ratios with their targets, then reopen and memory. */
export function formatReport(report: BenchReport): string {
  const { turns, runs, early, late, reopenRepeats } = report.options;
  const widths = [33, 24, 24, 16, 16];
  const line = (cells: readonly string[]) =>
    cells.map((cell, index) => (index < widths.length ? cell.padEnd(widths[index] as number) : cell)).join("");
  const row = (name: string, summary: LoopSummary, target: boolean) =>
    line([
      name,
      perTurn(summary.early),
      perTurn(summary.late),
      `${times(summary.ratio)} (${times(summary.meanRatio)})`,
      target ? verdict(summary.ratio, targets.maxLateOverEarly) : "",
      formatDuration(summary.totalMs),
    ]);
  const { reopen } = report;
  const lines = [
    `turn loop, ${turns} turns in one Run, one tool call per turn (turn ${turns} answers with text and ends the Run)`,
    `per-turn wall time, median (mean) of the window's turns pooled over ${runs} Run(s); late/early of medians (of means)`,
    line(["", `turns ${early.from}-${early.to}`, `turns ${late.from}-${late.to}`, "late/early", "target", "whole Run"]),
    row("hand-written loop", report.handWritten, false),
    row("castellan, memory store", report.memoryStore, true),
    row("castellan, file store", report.fileStore, true),
    row("castellan + state, memory store", report.memoryStoreState, true),
    row("castellan + state, file store", report.fileStoreState, true),
    `castellan/hand-written   ${times(report.overhead.early)} early, ${times(report.overhead.late)} late (memory store, medians)`,
    `"+ state": the agent declares a state key and its tool calls ctx.setState in every tool-call turn`,
    "",
    `reopen (file store + state, ${reopen.records} records, ${(reopen.bytes / 1024 / 1024).toFixed(2)} MiB)  ` +
      `open ${reopen.openMs.toFixed(1)} ms   raw read+parse ${reopen.rawMs.toFixed(1)} ms   ` +
      `${times(reopen.ratio)}  ${verdict(reopen.ratio, targets.maxReopenOverRaw)}`,
    `  medians of ${reopenRepeats}; of the open, store.open alone (lock, read, crc and record checks) ` +
      `${reopen.storeOpenMs.toFixed(1)} ms = ${times(reopen.storeOpenMs / reopen.rawMs)} raw`,
    "",
    `RSS after each phase: ${report.memory.map((entry) => `${entry.phase} ${entry.rssMiB.toFixed(0)} MiB`).join(", ")}`,
    `peak RSS ${report.peakRssMiB.toFixed(0)} MiB (maxRSS)`,
    `${report.nodeVersion}, GC between phases: ${report.gcBetweenPhases ? "yes" : "no (NODE_OPTIONS=--expose-gc to enable)"}`,
  ];
  return `${lines.join("\n")}\n`;
}
