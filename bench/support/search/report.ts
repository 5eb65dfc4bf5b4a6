// The printed report of the search bench.
import { formatDuration } from "../report.ts";
import type { SearchBenchReport } from "./bench.ts";
import type { DeepReadResult, DeepReadTarget } from "./deep-read.ts";
import { type LiteralResult, literalTarget } from "./literal.ts";

const times = (ratio: number) => `${ratio.toFixed(2)}x`;

function literalRows(results: readonly LiteralResult[]): string[] {
  const widths = [12, 24, 8, 7, 24, 12, 0];
  const line = (cells: readonly string[]) => cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join("");
  const rows = [line(["query", "text", "hits", "pages", "engine", "rg", "engine/rg"])];
  for (const result of results) {
    for (const [engine, ms] of Object.entries(result.engineMs)) {
      const ratio = result.ripgrepMs === undefined ? undefined : ms / result.ripgrepMs;
      const verdict =
        ratio === undefined
          ? "no rg"
          : `${times(ratio)} ${ratio <= literalTarget ? "PASS" : "MISS"} (<= ${literalTarget}x)${
              result.firstRatios?.[engine] === undefined
                ? ""
                : ` (first ${times(result.firstRatios[engine] as number)})`
            }`;
      rows.push(
        line([
          result.name,
          JSON.stringify(result.query).slice(0, 22),
          String(result.hits),
          String(result.pages),
          `${formatDuration(ms)}${engine === "builtin" ? "" : ` (${engine})`}`,
          result.ripgrepMs === undefined ? "-" : formatDuration(result.ripgrepMs),
          verdict,
        ]),
      );
    }
  }
  return rows;
}

/** `1.42x PASS`, or `3.10x MISS (first 3.30x)` for a target measured again. */
function verdict(target: DeepReadTarget, format: (value: number) => string): string {
  const first = target.first === undefined ? "" : ` (first ${format(target.first)})`;
  return `${format(target.value)} ${target.pass ? "PASS" : "MISS"}${first}`;
}

function deepReadRows(result: DeepReadResult, rounds: number): string[] {
  const mebibytes = (value: number) => `${value.toFixed(1)} MiB`;
  const row = (name: string, value: string) => `${name.padEnd(50)}${value}`;
  return [
    row("lines", `${result.lines} (${result.bytes} bytes, ${(result.bytes / 1e6).toFixed(1)} MB)`),
    row("tool, one call in this process", formatDuration(result.toolMs)),
    row(
      "sed, through execFile (process start included)",
      `${formatDuration(result.sedMs)} (sed -n '1{p;q}', about its start alone: ${formatDuration(result.sedStartMs)})`,
    ),
    row("tool/sed", `${verdict(result.ratio, times)} (<= ${result.ratio.limit}x)`),
    row(
      "peak RSS growth of the read",
      `${verdict(result.rssGrowth, mebibytes)} (< ${result.rssGrowth.limit} MiB; largest of ${rounds} child ` +
        `process(es), median ${mebibytes(result.rssGrowthMedian)})`,
    ),
    row("peak RSS of the child before the read", `${mebibytes(result.rssBefore)} (median; the growth is over it)`),
  ];
}

/** The report as text. */
export function formatSearchBenchReport(report: SearchBenchReport): string {
  const { tree, options } = report;
  const lines = [
    tree
      ? `search bench: generated tree of ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB ` +
        `(${tree.ignoredFiles} ignored, ${tree.binaryFiles} binary), written in ${formatDuration(report.generateMs ?? 0)}`
      : "search bench: no tree (the literal section did not run)",
    `rg: ${report.ripgrepVersion ?? "not found"}; ${report.nodeVersion}; medians of ${options.rounds} round(s) after a warm-up`,
  ];
  if (report.literal) {
    lines.push(
      "",
      "literal search: every page through the engine (default limits) vs one rg run " +
        "(--fixed-strings --hidden --no-require-git --glob '!.git' --line-number); same (path, line) set checked",
    );
    for (const [corpus, results] of Object.entries(report.literal)) {
      lines.push("", `${corpus}${corpus === "repository" && options.repository ? ` (${options.repository})` : ""}`);
      lines.push(...literalRows(results));
    }
  }
  const deepRead = report.deepRead;
  if (deepRead) {
    lines.push(
      "",
      `deep read: read_workspace_file at startLine ${deepRead.startLine} of a generated file, beside ` +
        `sed -n '${deepRead.startLine}{p;q}'; both checked to give that line; a target that missed is ` +
        "measured again at once (`first` is its first figure)",
      ...deepReadRows(deepRead, options.rounds),
    );
  }
  return `${lines.join("\n")}\n`;
}
