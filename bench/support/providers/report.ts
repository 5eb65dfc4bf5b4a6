// The printed tables of the providers bench: every target with PASS or MISS, then the figures
// they come from.
import { formatDuration } from "../report.ts";
import {
  type LoopKind,
  type LoopResult,
  lateWindow,
  type ProviderBenchReport,
  type TargetName,
  type TargetResult,
  targets,
} from "./bench.ts";

const times = (ratio: number) => `${ratio.toFixed(2)}x`;
const ms = (value: number) => value.toFixed(1);

/** Reported elsewhere, for context only: whole loop over a bare loop on the same kind of workload. */
export const referenceFigures = [
  ["pi-agent-core", "1.56-2.1x"],
  ["AI SDK", "1.6-3.4x"],
  ["OpenAI Agents SDK", "3.4-4.2x"],
  ["Mastra", "3.9-4.9x"],
] as const;

/** What each target compares, in the report's words. */
export const targetLabels: Readonly<Record<TargetName, string>> = {
  memoryOverFloor: "memory / floor",
  adapterOverFloor: "adapter / floor",
  fileReadOnlyOverMemory: "file-ro / memory-ro",
  fileOverMemoryPlusSyncs: "file / (memory + syncs)",
  flatOverBare: "late/early / bare's",
};

function table(widths: readonly number[]) {
  return (cells: readonly string[]) =>
    cells
      // A cell wider than its column still keeps two spaces before the next.
      .map((cell, index) =>
        index < cells.length - 1 ? cell.padEnd(Math.max(widths[index] ?? 0, cell.length + 2)) : cell,
      )
      .join("")
      .trimEnd();
}

/** `1.07x PASS`, or `1.21x MISS (first 1.19x)` for a re-measured target. */
function verdict(result: TargetResult): string {
  const first = result.firstRatio === undefined ? "" : ` (first ${times(result.firstRatio)})`;
  return `${times(result.ratio)} ${result.pass ? "PASS" : "MISS"}${first}`;
}

/** The report as text: the targets with their verdicts, the loops' times, per-turn flatness, then context. */
export function formatProviderReport(report: ProviderBenchReport): string {
  const { sizes, warmups, placement, early } = report.options;
  const largest = Math.max(...sizes.map((size) => size.turns));
  const late = lateWindow(largest);
  const names = Object.keys(targets) as TargetName[];
  const lines = [
    "providers bench: one Run of N turns (N-1 `tick` tool calls, then a text answer) through each adapter against a",
    `loopback fixture server (${placement === "child-process" ? "in a child process, for every loop alike" : "in this process"}); every loop sends the same request bytes`,
    `${sizes.map((size) => `${size.repeats} timed Runs at N=${size.turns}`).join(", ")}, each after ${warmups} warm-up round(s); the targets compare typical Runs:`,
    "each loop's turns pooled over its Runs, the slowest 5% left out (stalls from other processes), their mean times N",
    "loops: bare (fetch + hand-built body + minimal SSE reader); floor (the same requests sent through the SDK the adapter is built",
    "on, their bodies read by the bare loop's SSE reader, no Castellan code; for ai-sdk, the same loop calling the wrapped AI SDK",
    "model directly); adapter (the adapter alone, hand-driven);",
    "memory / file (a Castellan Run, memory or file store, a tool with effects); memory-ro / file-ro (the same, a read-only tool)",
    `targets: ${names.map((name) => `${targetLabels[name]} <= ${targets[name]}x`).join("; ")}`,
    `(syncs: one measured synced append per turn; late/early: per-turn time at N=${largest}, the worst of memory, file and`,
    " file-ro, over the bare loop's own late/early; a target that missed is re-measured in the same run: `first` is its first ratio)",
    "",
  ];
  const targetTable = table([19, 6, ...names.map(() => 27)]);
  lines.push(targetTable(["adapter", "N", ...names.map((name) => targetLabels[name])]));
  let passed = 0;
  let total = 0;
  for (const result of report.results) {
    for (const size of result.sizes) {
      const cells = names.map((name) => {
        // Flatness is read at the largest N only.
        if (name === "flatOverBare" && size.turns !== largest) return "-";
        total++;
        if (size.targets[name].pass) passed++;
        return verdict(size.targets[name]);
      });
      lines.push(targetTable([result.adapter, String(size.turns), ...cells]));
    }
  }
  lines.push(`${passed} of ${total} targets PASS`, "");

  const kinds: readonly LoopKind[] = ["bare", "sdk", "adapter", "memory", "memory-ro", "file", "file-ro"];
  lines.push("typical whole Run (ms), the median Run's total in parentheses:");
  const loopTable = table([19, 6, 9, ...kinds.map(() => 16), 14]);
  lines.push(
    loopTable([
      "adapter",
      "N",
      "req KiB",
      ...kinds.map((kind) => `${kind === "sdk" ? "floor" : kind} ms`),
      "file waits/turn",
    ]),
  );
  for (const result of report.results) {
    for (const size of result.sizes) {
      const file = size.loops.file;
      const waits = file.waitedAppends === undefined ? "-" : ((file.waitedAppends - 1) / size.turns).toFixed(2);
      lines.push(
        loopTable([
          result.adapter,
          String(size.turns),
          (size.requestBytes / 1024).toFixed(0),
          ...kinds.map((kind) => `${ms(size.loops[kind].typicalMs)} (${ms(size.loops[kind].totalMs)})`),
          waits,
        ]),
      );
    }
  }
  lines.push(
    `one synced append (~1 KiB write + datasync) on this disk: ${formatDuration(report.syncMs)} (trimmed mean of syncs timed before every file-store loop). "file waits/turn":`,
    "the appends a file-store Run with a tool with effects waited on, after its start, per turn (at most one: the intent)",
  );

  const flat = table([19, 30, 30, 30, 30]);
  const cell = (loop: LoopResult) =>
    `${formatDuration(loop.perTurn.early.median)} -> ${formatDuration(loop.perTurn.late.median)}  ${times(loop.perTurn.ratio)}`;
  lines.push(
    "",
    `per-turn wall time at N=${largest}: median of turns ${early.from}-${early.to} (early) -> of turns ${late.from}-${late.to} (late), pooled over the timed Runs; late/early`,
    "(every request carries the whole conversation, so even the bare loop's turns grow)",
    flat(["adapter", "bare", "memory", "file", "file-ro"]),
  );
  for (const result of report.results) {
    const size = result.sizes.find((entry) => entry.turns === largest);
    if (!size) continue;
    const { bare, memory, file } = size.loops;
    lines.push(flat([result.adapter, cell(bare), cell(memory), cell(file), cell(size.loops["file-ro"])]));
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
