// The search bench as one function of its size, so the smoke test can run it small. It
// makes a temporary directory under os.tmpdir() (after checking the disk has room), runs each
// chosen section in it and removes it however it ends: the literal section over a tree
// generated there and over a repository, then the deep-read section over one long file
// written there. Each section returns its results for the report.
import { mkdtemp, rm, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkDeepReadSize, type DeepReadSize, defaultDeepReadSize } from "./deep-file.ts";
import { type DeepReadResult, runDeepReadSection } from "./deep-read.ts";
import { findRipgrep } from "./engines.ts";
import { type LiteralCorpus, type LiteralResult, runLiteralSection } from "./literal.ts";
import { type GeneratedTree, generateTree, type TreeSize, treeTokens } from "./tree.ts";

/** The sections a run can include. */
export const searchSections = ["literal", "deep-read"] as const;
export type SearchSection = (typeof searchSections)[number];

export interface SearchBenchOptions {
  /** The literal section's tree. */
  readonly size: TreeSize;
  /** The deep-read section's file and the line it reads from. */
  readonly deepRead: DeepReadSize;
  /** A repository to search besides the generated tree (its own .gitignore applies), or undefined. */
  readonly repository: string | undefined;
  readonly sections: readonly SearchSection[];
  /** Timed rounds of each measurement. */
  readonly rounds: number;
  /** Free bytes the temporary directory's file system must have before anything is written. */
  readonly minimumFreeBytes: number;
  /** rg's executable. Default `rg` on PATH; the comparison is left out when it is not found. */
  readonly ripgrep?: string;
  /** Called with the temporary directory (the tree's and the deep-read file's) once it exists, so a signal handler can remove it. */
  readonly onTree?: (directory: string | undefined) => void;
  readonly progress?: (message: string) => void;
}

export interface SearchBenchReport {
  readonly options: Omit<SearchBenchOptions, "onTree" | "progress">;
  /** What was generated for the literal section; undefined when it did not run. */
  readonly tree: GeneratedTree | undefined;
  readonly ripgrepVersion: string | undefined;
  /** Results of the literal section, by corpus name. */
  readonly literal: Readonly<Record<string, readonly LiteralResult[]>> | undefined;
  /** Results of the deep-read section, undefined when it did not run. */
  readonly deepRead: DeepReadResult | undefined;
  /** Ms to write the tree; undefined with it. */
  readonly generateMs: number | undefined;
  readonly nodeVersion: string;
}

/** The defaults: every section, 20,000 files, 200 MB, line 1,000,000 of 1,200,000, 3 rounds, 1 GiB free. */
export function defaultSearchBenchOptions(repository: string | undefined): SearchBenchOptions {
  return {
    size: { files: 20_000, bytes: 200_000_000 },
    deepRead: defaultDeepReadSize,
    repository,
    sections: searchSections,
    rounds: 3,
    minimumFreeBytes: 1024 ** 3,
  };
}

const treeQueries = [
  { name: "rare", query: treeTokens.rare },
  { name: "common", query: treeTokens.common },
  { name: "absent", query: treeTokens.absent },
  { name: "multi-word", query: treeTokens.multiWord },
];

const repositoryQueries = [
  { name: "rare", query: "bindWorkspaceRootSync" },
  { name: "common", query: "import" },
  { name: "absent", query: "qwxzvAbsent77" },
  { name: "multi-word", query: "export function" },
];

export async function runSearchBench(options: SearchBenchOptions): Promise<SearchBenchReport> {
  const progress = options.progress ?? (() => {});
  // Before anything runs: a bad size would otherwise fail only after the literal section.
  if (options.sections.includes("deep-read")) checkDeepReadSize(options.deepRead);
  const free = await statfs(tmpdir());
  const freeBytes = free.bavail * free.bsize;
  if (freeBytes < options.minimumFreeBytes) {
    throw new Error(`${tmpdir()} has ${freeBytes} bytes free; the bench needs ${options.minimumFreeBytes}.`);
  }
  const directory = await mkdtemp(join(tmpdir(), "castellan-search-bench-"));
  options.onTree?.(directory);
  try {
    const ripgrepVersion = await findRipgrep(options.ripgrep);
    let tree: GeneratedTree | undefined;
    let generateMs: number | undefined;
    let literal: Record<string, LiteralResult[]> | undefined;
    if (options.sections.includes("literal")) {
      progress(`generating ${options.size.files} files, ${(options.size.bytes / 1e6).toFixed(0)} MB in ${directory}`);
      const started = performance.now();
      tree = await generateTree(directory, options.size);
      generateMs = performance.now() - started;
      const ripgrep = ripgrepVersion === undefined ? undefined : (options.ripgrep ?? "rg");
      if (!ripgrep) progress("rg not found: timing the engine alone");
      const corpora: LiteralCorpus[] = [{ name: "generated tree", directory, queries: treeQueries }];
      if (options.repository)
        corpora.push({ name: "repository", directory: options.repository, queries: repositoryQueries });
      literal = {};
      for (const corpus of corpora) {
        literal[corpus.name] = await runLiteralSection(corpus, {
          rounds: options.rounds,
          // Both engines when rg exists: the ripgrep engine runs the matching in rg.
          engines: ripgrep ? ["builtin", "ripgrep"] : ["builtin"],
          ripgrep,
          progress,
        });
      }
    }
    // After the literal section, so its file is never in the searched tree.
    const deepRead = options.sections.includes("deep-read")
      ? await runDeepReadSection(directory, { size: options.deepRead, rounds: options.rounds, progress })
      : undefined;
    const { onTree: _onTree, progress: _progress, ...kept } = options;
    return { options: kept, tree, ripgrepVersion, literal, deepRead, generateMs, nodeVersion: process.version };
  } finally {
    await rm(directory, { recursive: true, force: true });
    options.onTree?.(undefined);
  }
}
