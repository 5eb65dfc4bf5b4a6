// `npm run bench:search [-- --sections literal,deep-read --files N --megabytes M --lines N
// --start-line L --rounds R --no-repository]`: the search engine beside ripgrep, and the file
// reader beside sed. It works in a directory under the OS temporary directory (checking first
// that 1 GiB is free) and removes it afterwards, on failure and on Ctrl+C too. The literal
// section writes a tree of 20,000 files and 200 MB (default) there, runs 4 queries (rare,
// common, absent, multi-word) through the engine, paged to the end, and through `rg
// --fixed-strings --hidden --no-require-git --glob '!.git' --line-number`, over the tree and
// over this repository, asserts both found the same (path, line) set, and prints times and
// ratios against the target of 2x rg. The deep-read section writes a file of 1,200,000 lines
// there, reads it from line 1,000,000 through `read_workspace_file` and through `sed -n
// '1000000{p;q}'`, and prints times, the ratio against the target of 3x sed, and the read's
// peak RSS growth against 64 MiB. Both sections run by default. The same flags can be given
// as BENCH_SEARCH_SECTIONS, BENCH_SEARCH_FILES, BENCH_SEARCH_MEGABYTES, BENCH_SEARCH_LINES,
// BENCH_SEARCH_START_LINE, BENCH_SEARCH_ROUNDS and BENCH_SEARCH_REPOSITORY=0. Targets are
// informational.
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  defaultSearchBenchOptions,
  runSearchBench,
  type SearchSection,
  searchSections,
} from "./support/search/bench.ts";
import { formatSearchBenchReport } from "./support/search/report.ts";

const { values } = parseArgs({
  options: {
    sections: { type: "string", default: process.env.BENCH_SEARCH_SECTIONS },
    files: { type: "string", default: process.env.BENCH_SEARCH_FILES },
    megabytes: { type: "string", default: process.env.BENCH_SEARCH_MEGABYTES },
    lines: { type: "string", default: process.env.BENCH_SEARCH_LINES },
    "start-line": { type: "string", default: process.env.BENCH_SEARCH_START_LINE },
    rounds: { type: "string", default: process.env.BENCH_SEARCH_ROUNDS },
    "no-repository": { type: "boolean", default: process.env.BENCH_SEARCH_REPOSITORY === "0" },
  },
});

function count(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`--${name} must be a positive number, not ${text}.`);
  return value;
}

function sections(text: string | undefined): readonly SearchSection[] {
  if (text === undefined) return searchSections;
  const names = text.split(",").map((name) => name.trim());
  for (const name of names) {
    if (!(searchSections as readonly string[]).includes(name)) {
      throw new RangeError(`--sections takes ${searchSections.join(", ")} (comma-separated), not ${name}.`);
    }
  }
  return names as SearchSection[];
}

const repository = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");
const defaults = defaultSearchBenchOptions(values["no-repository"] ? undefined : repository);
let tree: string | undefined;
// Ctrl+C: remove the tree before leaving (the finally of an interrupted await never runs).
process.once("SIGINT", () => {
  if (tree) rmSync(tree, { recursive: true, force: true });
  process.exit(130);
});

const report = await runSearchBench({
  ...defaults,
  sections: sections(values.sections),
  size: {
    files: Math.round(count(values.files, defaults.size.files, "files")),
    bytes: Math.round(count(values.megabytes, defaults.size.bytes / 1e6, "megabytes") * 1e6),
  },
  deepRead: {
    lines: Math.round(count(values.lines, defaults.deepRead.lines, "lines")),
    startLine: Math.round(count(values["start-line"], defaults.deepRead.startLine, "start-line")),
  },
  rounds: Math.round(count(values.rounds, defaults.rounds, "rounds")),
  onTree: (directory) => {
    tree = directory;
  },
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatSearchBenchReport(report));
