// The printed report of the search bench.
import { formatDuration } from "../report.ts";
import type { SearchBenchReport } from "./bench.ts";
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
          : `${times(ratio)} ${ratio <= literalTarget ? "PASS" : "MISS"} (<= ${literalTarget}x)`;
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

/** The report as text. */
export function formatSearchBenchReport(report: SearchBenchReport): string {
  const { tree, options } = report;
  const lines = [
    `search bench: generated tree of ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB ` +
      `(${tree.ignoredFiles} ignored, ${tree.binaryFiles} binary), written in ${formatDuration(report.generateMs)}`,
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
  return `${lines.join("\n")}\n`;
}
