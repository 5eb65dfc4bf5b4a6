// The printed tables of the providers bench.
import { formatDuration } from "../report.ts";
import { type LoopResult, lateWindow, type ProviderBenchReport, targets } from "./bench.ts";

const times = (ratio: number) => `${ratio.toFixed(2)}x`;
const verdict = (ratio: number, limit: number) => `${ratio <= limit ? "PASS" : "MISS"} (<= ${limit}x)`;
const ms = (value: number) => value.toFixed(1);

/** Reported elsewhere, for context only: whole loop over a bare loop on the same kind of workload. */
export const referenceFigures = [
  ["pi-agent-core", "1.56-2.1x"],
  ["AI SDK", "1.6-3.4x"],
  ["OpenAI Agents SDK", "3.4-4.2x"],
  ["Mastra", "3.9-4.9x"],
] as const;

function table(widths: readonly number[]) {
  return (cells: readonly string[]) =>
    cells
      .map((cell, index) => (index < cells.length - 1 ? cell.padEnd(widths[index] ?? 0) : cell))
      .join("")
      .trimEnd();
}

/** (slower - faster) / turns, of the whole-Run medians. */
function perTurn(slower: LoopResult, faster: LoopResult, turns: number): string {
  const difference = (slower.totalMs - faster.totalMs) / turns;
  return `${difference < 0 ? "-" : ""}${formatDuration(Math.abs(difference))}`;
}

/** The report as text: whole-Run ratios with their targets, then per-turn flatness, then context. */
export function formatProviderReport(report: ProviderBenchReport): string {
  const { sizes, warmups, placement, early } = report.options;
  const largest = Math.max(...sizes.map((size) => size.turns));
  const late = lateWindow(largest);
  const whole = table([19, 5, 9, 10, 17, 17, 11, 8, 16, 10, 8, 16]);
  const lines = [
    "providers bench: one Run of N turns (N-1 `tick` tool calls, then a text answer) through each adapter against a",
    `loopback fixture server (${placement === "child-process" ? "in a child process, for every loop alike" : "in this process"}), beside a bare fetch + SSE-parse loop sending the same request bytes`,
    `whole-Run wall time: median of ${sizes.map((size) => `${size.repeats} timed Runs at N=${size.turns}`).join(", ")}, each after ${warmups} warm-up round(s); ratios of the medians over bare`,
    '"sdk": the bare loop sending each request through the official SDK the adapter is built on (the floor of any adapter on it)',
    '"adapter": the adapter alone in a hand-written loop (no runner); neither has a target: they split the extra time',
    "",
    whole([
      "adapter",
      "N",
      "req KiB",
      "bare ms",
      "sdk ms",
      "adapter ms",
      "memory ms",
      "ratio",
      "memory target",
      "file ms",
      "ratio",
      "file target",
      "extra per turn: sdk, adapter, runner, file store",
    ]),
  ];
  for (const result of report.results) {
    for (const size of result.sizes) {
      const { bare, sdk, adapter, memory, file } = size.loops;
      lines.push(
        whole([
          result.adapter,
          String(size.turns),
          (size.requestBytes / 1024).toFixed(0),
          ms(bare.totalMs),
          sdk && size.sdkRatio !== undefined ? `${ms(sdk.totalMs)} (${times(size.sdkRatio)})` : "-",
          `${ms(adapter.totalMs)} (${times(size.adapterRatio)})`,
          ms(memory.totalMs),
          times(size.memoryRatio),
          verdict(size.memoryRatio, targets.memoryOverBare),
          ms(file.totalMs),
          times(size.fileRatio),
          verdict(size.fileRatio, targets.fileOverBare),
          [
            sdk ? perTurn(sdk, bare, size.turns) : "-",
            perTurn(adapter, sdk ?? bare, size.turns),
            perTurn(memory, adapter, size.turns),
            perTurn(file, memory, size.turns),
          ].join(", "),
        ]),
      );
    }
  }
  lines.push(
    "",
    `one synced append (~1 KiB write + datasync) on this disk: ${formatDuration(report.syncMs)} (median of 101); a durable tool turn`,
    "waits for at least one (its intent must be saved before the tool runs), so the file store's floor is the sdk loop",
    "plus one sync per turn:",
  );
  const floors = table([19, 5, 22, 22]);
  lines.push(floors(["adapter", "N", "memory floor (sdk)", "file floor (sdk + syncs)"]));
  for (const result of report.results) {
    for (const size of result.sizes) {
      const { bare, sdk } = size.loops;
      if (!sdk || size.sdkRatio === undefined) continue;
      const fileFloor = (sdk.totalMs + size.turns * report.syncMs) / bare.totalMs;
      lines.push(floors([result.adapter, String(size.turns), times(size.sdkRatio), times(fileFloor)]));
    }
  }
  const flat = table([19, 29, 29, 16, 7, 29, 16, 7]);
  const cell = (loop: LoopResult) =>
    `${formatDuration(loop.perTurn.early.median)} -> ${formatDuration(loop.perTurn.late.median)}  ${times(loop.perTurn.ratio)}`;
  lines.push(
    "",
    `per-turn wall time at N=${largest}: median of turns ${early.from}-${early.to} (early) -> of turns ${late.from}-${late.to} (late), pooled over the timed Runs; late/early`,
    "(every request carries the whole conversation, so even the bare loop's turns grow; /bare: late/early over the bare loop's)",
    flat(["adapter", "bare", "memory", "target", "/bare", "file", "target", "/bare"]),
  );
  for (const result of report.results) {
    const size = result.sizes.find((entry) => entry.turns === largest);
    if (!size) continue;
    const { bare, memory, file } = size.loops;
    lines.push(
      flat([
        result.adapter,
        cell(bare),
        cell(memory),
        verdict(memory.perTurn.ratio, targets.lateOverEarly),
        times(memory.perTurn.ratio / bare.perTurn.ratio),
        cell(file),
        verdict(file.perTurn.ratio, targets.lateOverEarly),
        times(file.perTurn.ratio / bare.perTurn.ratio),
      ]),
    );
  }
  lines.push(
    "",
    `${report.nodeVersion}, GC before every timed loop: ${report.gcBetweenLoops ? "yes" : "no"}`,
    "",
    "For context, reported reference figures (not measured here): whole agent loop over a bare loop on the same kind of",
    `workload: ${referenceFigures.map(([name, range]) => `${name} ${range}`).join(", ")}.`,
  );
  return `${lines.join("\n")}\n`;
}
