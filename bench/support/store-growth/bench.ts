// The store-growth bench as one function of its options, so the smoke test can run it small.
// For each layer (the store alone; the runner with the instant model; the runner with the
// openai-compatible adapter against the loopback fixture server), warm-up rounds then timed
// rounds; a round runs every Run length with each store, in an order that rotates each round,
// so drift on a shared machine hits every loop alike. A GC before every Run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSessionStore, createMemorySessionStore } from "@castellan/node-runner";
import { runCastellanLoop } from "../castellan-loop.ts";
import { adapters } from "../providers/adapters.ts";
import { lateWindow } from "../providers/bench.ts";
import { type ServerPlacement, startBenchServer } from "../providers/server-process.ts";
import { type LoopSummary, median, summarize, type TurnTimings, type TurnWindow } from "../stats.ts";
import { runAppendLoop } from "./append-loop.ts";
import { timedStore } from "./timed-store.ts";

/** Informational: a store's late per-turn time over its early one, and the file store's extra late over early. */
export const targets = { lateOverEarly: 1.5, extraLateOverEarly: 1.25 } as const;

export type Layer = "store" | "instant" | "adapter";
export const layers: readonly Layer[] = ["store", "instant", "adapter"];
export type StoreKind = "memory" | "file";
const storeKinds: readonly StoreKind[] = ["memory", "file"];

/**
 * One Run's per-turn times; `waits[t - 1]`: how long turn t waited on the appends it did not
 * save ahead; the store layer also has the time inside its append calls.
 */
type Timings = TurnTimings & { readonly waits: readonly number[]; readonly calls?: readonly number[] };

const key = (turns: number, kind: StoreKind) => `${turns} ${kind}`;

/** One store's timed Runs of `turns` turns, summarized. */
function storeResult(runs: readonly Timings[], turns: number, early: TurnWindow): StoreResult {
  const late = lateWindow(turns);
  const withCalls = runs.flatMap((run) => (run.calls ? [{ durations: run.calls, totalMs: run.totalMs }] : []));
  return {
    perTurn: summarize(runs, early, late),
    waits: summarize(
      runs.map((run) => ({ durations: run.waits, totalMs: run.totalMs })),
      early,
      late,
    ),
    ...(withCalls.length === runs.length ? { calls: summarize(withCalls, early, late) } : {}),
    wholePerTurnMs: median(runs.map((run) => run.totalMs)) / turns,
  };
}

export interface StoreGrowthOptions {
  readonly layers: readonly Layer[];
  /** Run lengths in turns (each at least 30). */
  readonly sizes: readonly { readonly turns: number }[];
  /**
   * Timed rounds per layer; a round runs every size with each store, so the Runs of N = 50 and
   * N = 400 are interleaved and drift over the bench hits both sizes alike.
   */
  readonly repeats: number;
  /** Untimed rounds per layer before the timed ones. */
  readonly warmups: number;
  /** Where the adapter layer's fixture server runs. */
  readonly placement: ServerPlacement;
  /** The early window; the late one is the last 11 tool-call turns. */
  readonly early: TurnWindow;
  readonly gc?: () => void;
  readonly progress?: (message: string) => void;
}

/** Defaults: every layer at N = 50 and 400, 9 timed rounds after 1 warm-up round. */
export function defaultStoreGrowthOptions(): Omit<StoreGrowthOptions, "gc" | "progress"> {
  return {
    layers,
    sizes: [{ turns: 50 }, { turns: 400 }],
    repeats: 9,
    warmups: 1,
    placement: "child-process",
    early: { from: 10, to: 20 },
  };
}

export { lateWindow };

/** One store's Runs of one size in one layer. */
export interface StoreResult {
  readonly perTurn: LoopSummary;
  /** Per turn, the wait on the appends not saved ahead (the turn's intent; the last turn's answer). */
  readonly waits: LoopSummary;
  /** The store layer only: time inside the append calls per turn, early and late windows. */
  readonly calls?: LoopSummary;
  /** Median whole-Run time over turns, ms. */
  readonly wholePerTurnMs: number;
}

export interface SizeResult {
  readonly turns: number;
  readonly memory: StoreResult;
  readonly file: StoreResult;
  /** File minus memory, of the window medians, ms: what the file store adds to a turn. */
  readonly extra: { readonly early: number; readonly late: number };
}

export interface LayerResult {
  readonly layer: Layer;
  readonly sizes: readonly SizeResult[];
}

export interface StoreGrowthReport {
  readonly options: Omit<StoreGrowthOptions, "gc" | "progress">;
  readonly results: readonly LayerResult[];
  readonly gcBetweenRuns: boolean;
  readonly nodeVersion: string;
}

const openaiCompatible = adapters.find((spec) => spec.name === "openai-compatible");

/** Runs the bench; the file stores live in one temp directory, removed at the end. */
export async function runStoreGrowthBench(options: StoreGrowthOptions): Promise<StoreGrowthReport> {
  const { sizes, repeats, warmups, early } = options;
  for (const { turns } of sizes) {
    if (!Number.isInteger(turns) || turns < 30) throw new RangeError(`Run lengths must be integers >= 30: ${turns}.`);
  }
  const directory = await mkdtemp(join(tmpdir(), "castellan-bench-store-"));
  const fileStore = createFileSessionStore({ directory });
  let sessions = 0;
  const results: LayerResult[] = [];
  try {
    for (const layer of options.layers) {
      const server =
        layer === "adapter" && openaiCompatible
          ? await startBenchServer(openaiCompatible.format, options.placement)
          : undefined;
      try {
        const model = server && openaiCompatible ? openaiCompatible.bind(server.url) : undefined;
        const loop = async (kind: StoreKind, turns: number): Promise<Timings> => {
          await server?.reset();
          options.gc?.();
          const wrapped = timedStore(kind === "memory" ? createMemorySessionStore() : fileStore);
          const { store, waits } = wrapped;
          const sessionId = `${layer}-${kind}-${turns}-${++sessions}`;
          const timings =
            layer === "store"
              ? await runAppendLoop({ store, sessionId, turns })
              : await runCastellanLoop({ turns, store, sessionId, ...(model ? { model } : {}) });
          // The Run's start, then one per turn.
          if (waits.length !== turns + 1 || waits.some(Number.isNaN)) {
            throw new Error(`${layer} ${kind}: ${waits.length} waited appends for ${turns} turns, not ${turns + 1}.`);
          }
          return { ...timings, waits: waits.slice(1) };
        };
        // Every (size, store) loop of a round, in an order that rotates by one each round.
        const loops = sizes.flatMap(({ turns }) => storeKinds.map((kind) => ({ turns, kind })));
        const timed = new Map(loops.map((entry) => [key(entry.turns, entry.kind), [] as Timings[]]));
        options.progress?.(
          `${layer}: ${warmups} warm-up + ${repeats} timed rounds of ${sizes.map((size) => `N=${size.turns}`).join(" and ")}, each store`,
        );
        for (let round = 0; round < warmups + repeats; round++) {
          for (let index = 0; index < loops.length; index++) {
            const { turns, kind } = loops[(round + index) % loops.length] as (typeof loops)[number];
            const timings = await loop(kind, turns);
            if (round >= warmups) timed.get(key(turns, kind))?.push(timings);
          }
        }
        const sizeResults = sizes.map(({ turns }): SizeResult => {
          const memory = storeResult(timed.get(key(turns, "memory")) ?? [], turns, early);
          const file = storeResult(timed.get(key(turns, "file")) ?? [], turns, early);
          return {
            turns,
            memory,
            file,
            extra: {
              early: file.perTurn.early.median - memory.perTurn.early.median,
              late: file.perTurn.late.median - memory.perTurn.late.median,
            },
          };
        });
        results.push({ layer, sizes: sizeResults });
      } finally {
        await server?.close();
      }
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  const { layers: chosen, placement } = options;
  return {
    options: { layers: chosen, sizes, repeats, warmups, placement, early },
    results,
    gcBetweenRuns: options.gc !== undefined,
    nodeVersion: process.version,
  };
}
