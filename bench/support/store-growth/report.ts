// The printed table of the store-growth bench.
import { formatDuration } from "../report.ts";
import type { LoopSummary } from "../stats.ts";
import { type Layer, lateWindow, type StoreGrowthReport, targets } from "./bench.ts";

const layerNames: Readonly<Record<Layer, string>> = {
  store: "store alone",
  instant: "runner, instant model",
  adapter: "runner, openai-compatible",
};

const times = (ratio: number) => `${ratio.toFixed(2)}x`;
const verdict = (ratio: number, limit: number) => `${ratio <= limit ? "PASS" : "MISS"} (<= ${limit}x)`;
const signed = (ms: number) => `${ms < 0 ? "-" : "+"}${formatDuration(Math.abs(ms))}`;
const flat = (summary: LoopSummary) =>
  `${formatDuration(summary.early.median)} -> ${formatDuration(summary.late.median)}  ${times(summary.ratio)}`;

function table(widths: readonly number[]) {
  return (cells: readonly string[]) =>
    cells
      .map((cell, index) => (index < cells.length - 1 ? cell.padEnd(widths[index] ?? 0) : cell))
      .join("")
      .trimEnd();
}

/**
 * The report as text: per layer and Run length, each store's per-turn time early -> late with
 * late/early, the file store's extra over the memory store early -> late, each store's wait on
 * its appends per turn, and (store alone) the time inside the append calls.
 */
export function formatStoreGrowthReport(report: StoreGrowthReport): string {
  const { early, sizes, repeats, warmups } = report.options;
  const row = table([27, 5, 33, 33, 16, 30, 16]);
  const lines = [
    "store growth: per-turn wall time of one Run of N turns (N-1 turns of one tool call with effects, then a text answer),",
    `memory store beside file store, median of turns ${early.from}-${early.to} (early) -> of the last 11 tool-call turns (late), pooled over`,
    `${repeats} timed Runs of each (N=${sizes.map((size) => size.turns).join(" and ")} interleaved), after ${warmups} warm-up round(s); late/early of the medians`,
    '"store alone": the appends a Run makes, without the runner; "file extra": file minus memory, of the medians',
    "",
    row([
      "layer",
      "N",
      "memory early -> late",
      "file early -> late",
      "file target",
      "file extra early -> late",
      "extra target",
    ]),
  ];
  for (const result of report.results) {
    for (const size of result.sizes) {
      const extraRatio = size.extra.late / size.extra.early;
      lines.push(
        row([
          layerNames[result.layer],
          String(size.turns),
          flat(size.memory.perTurn),
          flat(size.file.perTurn),
          verdict(size.file.perTurn.ratio, targets.lateOverEarly),
          `${signed(size.extra.early)} -> ${signed(size.extra.late)}  ${times(extraRatio)}`,
          verdict(extraRatio, targets.extraLateOverEarly),
        ]),
      );
    }
  }
  const side = table([27, 5, 33, 33]);
  lines.push(
    "",
    "the wait on the store per turn: from the append of the turn's intent (the one append a turn waits for; the receipt",
    "before it is saved ahead and shares its sync) to its durable end:",
    side(["layer", "N", "memory early -> late", "file early -> late"]),
  );
  for (const result of report.results) {
    for (const size of result.sizes) {
      lines.push(side([layerNames[result.layer], String(size.turns), flat(size.memory.waits), flat(size.file.waits)]));
    }
  }
  const store = report.results.find((result) => result.layer === "store");
  if (store) {
    lines.push(
      "",
      "store alone, time inside the append calls of a turn (validation, encoding, copies; not the write or the sync):",
      side(["", "N", "memory early -> late", "file early -> late"]),
    );
    for (const size of store.sizes) {
      if (!size.memory.calls || !size.file.calls) continue;
      lines.push(side(["", String(size.turns), flat(size.memory.calls), flat(size.file.calls)]));
    }
  }
  const whole = table([27, 5, 16, 16, 12]);
  lines.push("", "whole Run over N, median:", whole(["layer", "N", "memory", "file", "file extra"]));
  for (const result of report.results) {
    for (const size of result.sizes) {
      lines.push(
        whole([
          layerNames[result.layer],
          String(size.turns),
          formatDuration(size.memory.wholePerTurnMs),
          formatDuration(size.file.wholePerTurnMs),
          signed(size.file.wholePerTurnMs - size.memory.wholePerTurnMs),
        ]),
      );
    }
  }
  const largest = Math.max(...sizes.map((size) => size.turns));
  const late = lateWindow(largest);
  lines.push(
    "",
    `late window at N=${largest}: turns ${late.from}-${late.to}; ${report.nodeVersion}, GC before every timed Run: ${report.gcBetweenRuns ? "yes" : "no"}`,
  );
  return `${lines.join("\n")}\n`;
}
