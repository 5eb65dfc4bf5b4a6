// The bench's literal section: each query through the engine (paged to the end) and through
// rg, side by side over one corpus, checking both found the same (path, line) set.
import type { SearchEngine } from "../../../packages/node-runner/dist/capabilities/workspace/search/index.js";
import { median } from "../stats.ts";
import { type Found, searchWithEngine, searchWithRipgrep } from "./engines.ts";

/** Target: the engine within this factor of rg's time. */
export const literalTarget = 2;

/** One named query. */
export interface LiteralQuery {
  readonly name: string;
  readonly query: string;
}

/** One query's figures over one corpus. */
export interface LiteralResult {
  readonly name: string;
  readonly query: string;
  readonly hits: number;
  /** Median ms of each engine run, by engine name (`builtin`, and `ripgrep` when it exists). */
  readonly engineMs: Readonly<Record<string, number>>;
  readonly pages: number;
  /** Median ms of rg, undefined without rg. */
  readonly ripgrepMs: number | undefined;
  /** Each engine's ratio to rg in the first measurement, when a miss made the section measure the query again. */
  readonly firstRatios?: Readonly<Record<string, number>>;
}

/** A corpus searched by the section. */
export interface LiteralCorpus {
  readonly name: string;
  readonly directory: string;
  readonly queries: readonly LiteralQuery[];
}

/** What to run. */
export interface LiteralOptions {
  /** Timed rounds of each query (after one untimed warm-up round). */
  readonly rounds: number;
  /** The engines to time (each checked against rg). */
  readonly engines: readonly SearchEngine[];
  /** rg's executable, or undefined when there is none (the engine is then timed alone). */
  readonly ripgrep: string | undefined;
  readonly progress?: (message: string) => void;
}

/**
 * Runs every query of `corpus`; throws when an engine and rg disagree on the hits. A query
 * whose engine missed the target is measured again at once (the same rounds), and the second
 * figures count; the first ratio is kept for the report.
 */
export async function runLiteralSection(corpus: LiteralCorpus, options: LiteralOptions): Promise<LiteralResult[]> {
  const results: LiteralResult[] = [];
  for (const { name, query } of corpus.queries) {
    options.progress?.(`${corpus.name}: ${name} query ${JSON.stringify(query)}`);
    const first = await measureQuery(corpus, name, query, options);
    const missed = (figures: Measured) =>
      figures.ripgrepMs !== undefined &&
      Object.values(figures.engineMs).some((ms) => ms / (figures.ripgrepMs as number) > literalTarget);
    let counted = first;
    let firstRatios: Record<string, number> | undefined;
    if (missed(first)) {
      options.progress?.(`${corpus.name}: ${name} missed the target; measuring it again`);
      counted = await measureQuery(corpus, name, query, options);
      firstRatios = Object.fromEntries(
        Object.entries(first.engineMs).map(([engine, ms]) => [engine, ms / (first.ripgrepMs as number)]),
      );
    }
    results.push({ name, query, ...counted, ...(firstRatios ? { firstRatios } : {}) });
  }
  return results;
}

type Measured = Omit<LiteralResult, "name" | "query" | "firstRatios">;

/** One warm-up round (which checks each engine against rg) and `rounds` timed rounds of one query. */
async function measureQuery(
  corpus: LiteralCorpus,
  name: string,
  query: string,
  options: LiteralOptions,
): Promise<Measured> {
  const times: Record<string, number[]> = Object.fromEntries(options.engines.map((engine) => [engine, []]));
  const ripgrepTimes: number[] = [];
  let reference: Found | undefined;
  let pages = 0;
  for (let round = 0; round <= options.rounds; round++) {
    // Alternate which goes first, so neither always meets a cache the other warmed.
    const order = round % 2 === 0 ? ["rg", ...options.engines] : [...options.engines, "rg"];
    for (const runner of order) {
      if (runner === "rg") {
        if (!options.ripgrep) continue;
        const found = await searchWithRipgrep(corpus.directory, query, options.ripgrep);
        reference ??= found;
        if (round > 0) ripgrepTimes.push(found.ms);
        continue;
      }
      const found = await searchWithEngine(corpus.directory, query, runner as SearchEngine);
      if (round === 0 && reference) assertSame(found, reference, `${corpus.name} ${name} (${runner})`);
      reference ??= found;
      pages = found.pages;
      if (round > 0) times[runner]!.push(found.ms);
    }
  }
  return {
    hits: reference?.locations.size ?? 0,
    engineMs: Object.fromEntries(Object.entries(times).map(([engine, values]) => [engine, median(values)])),
    pages,
    ripgrepMs: options.ripgrep ? median(ripgrepTimes) : undefined,
  };
}

function assertSame(found: Found, reference: Found, what: string): void {
  const missing = [...reference.locations].filter((location) => !found.locations.has(location));
  const extra = [...found.locations].filter((location) => !reference.locations.has(location));
  if (missing.length === 0 && extra.length === 0) return;
  throw new Error(
    `${what}: the engine and rg disagree: ${missing.length} only rg found (${missing.slice(0, 5).join(", ")}), ` +
      `${extra.length} only the engine found (${extra.slice(0, 5).join(", ")}).`,
  );
}
