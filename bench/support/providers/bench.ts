// The providers bench as one function of its options, so the smoke test can run it small. For
// each adapter: one fixture server, then for each Run length warm-up rounds and timed rounds of
// the loops (bare; the bare loop sending through the adapter's SDK; the adapter alone, driven
// by a hand-written loop; Castellan with the memory store; Castellan with the file store), the
// order rotating each round so drift on a shared machine hits them alike. The SDK and
// adapter-alone loops have no target: they split Castellan's overhead into the SDK's share,
// the adapter's and the runner's. The cost of one synced append on the bench's disk is
// measured too: a durable tool turn cannot cost less than one.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSessionStore, createMemorySessionStore, type SessionStore } from "@castellan/node-runner";
import { runCastellanLoop } from "../castellan-loop.ts";
import { runHandWrittenLoop } from "../hand-loop.ts";
import { type LoopSummary, median, summarize, type TurnTimings, type TurnWindow } from "../stats.ts";
import { type AdapterName, type AdapterSpec, adapters, benchKey } from "./adapters.ts";
import { finalText } from "./answers.ts";
import { runBareLoop } from "./bare-loop.ts";
import { type ServerPlacement, startBenchServer } from "./server-process.ts";

/** The targets: Castellan over bare, and late over early per-turn time. */
export const targets = { memoryOverBare: 1.3, fileOverBare: 1.6, lateOverEarly: 1.5 } as const;

export type LoopKind = "bare" | "sdk" | "adapter" | "memory" | "file";
export const loopKinds: readonly LoopKind[] = ["bare", "sdk", "adapter", "memory", "file"];

/** The loops run for `spec`: all, but the SDK loop only for an adapter built on a provider SDK. */
export function loopsOf(spec: AdapterSpec): readonly LoopKind[] {
  return loopKinds.filter((kind) => kind !== "sdk" || spec.sdk !== undefined);
}

export interface ProviderBenchOptions {
  readonly adapters: readonly AdapterSpec[];
  /**
   * Run lengths in turns (each at least 40: turns-1 tool-call turns, then a text answer), each
   * with its number of timed rounds per adapter (medians are reported).
   */
  readonly sizes: readonly { readonly turns: number; readonly repeats: number }[];
  /** Untimed rounds per adapter and size before them. */
  readonly warmups: number;
  readonly placement: ServerPlacement;
  /** The early window of per-turn times; the late one is the last 11 tool-call turns. */
  readonly early: TurnWindow;
  /** A full GC, run before every timed loop when given. */
  readonly gc?: () => void;
  readonly progress?: (message: string) => void;
}

/**
 * Defaults: N = 50 (11 timed rounds: short Runs are cheap and noisier) and 400 (5 timed
 * rounds), each after 1 warm-up round, the server in a child process.
 */
export function defaultProviderOptions(): Omit<ProviderBenchOptions, "gc" | "progress"> {
  return {
    adapters,
    sizes: [
      { turns: 50, repeats: 11 },
      { turns: 400, repeats: 5 },
    ],
    warmups: 1,
    placement: "child-process",
    early: { from: 10, to: 20 },
  };
}

export interface LoopResult {
  /** Whole-Run wall times of the timed rounds, ms. */
  readonly totals: readonly number[];
  readonly totalMs: number;
  /** Per-turn windows pooled over the rounds. */
  readonly perTurn: LoopSummary;
}

export interface SizeResult {
  readonly turns: number;
  readonly repeats: number;
  /** Every loop; `sdk` only for an adapter built on a provider SDK. */
  readonly loops: Readonly<Record<Exclude<LoopKind, "sdk">, LoopResult>> & { readonly sdk?: LoopResult };
  /** Request body bytes of one Run (the same for every loop, checked each round). */
  readonly requestBytes: number;
  /** The SDK loop over bare: the least an adapter on that SDK can reach. */
  readonly sdkRatio: number | undefined;
  readonly adapterRatio: number;
  readonly memoryRatio: number;
  readonly fileRatio: number;
}

export interface AdapterResult {
  readonly adapter: AdapterName;
  readonly sizes: readonly SizeResult[];
}

export interface ProviderBenchReport {
  readonly options: Omit<ProviderBenchOptions, "adapters" | "gc" | "progress">;
  readonly results: readonly AdapterResult[];
  /** Median time of one append of ~1 KiB and its datasync in the file store's directory, ms. */
  readonly syncMs: number;
  readonly gcBetweenLoops: boolean;
  readonly nodeVersion: string;
}

/** The late window of a Run of `turns`: its last 11 tool-call turns (the final text turn is left out). */
export function lateWindow(turns: number): TurnWindow {
  return { from: turns - 11, to: turns - 1 };
}

/**
 * Runs the bench: per adapter one fixture server (placed as `placement`) and one temp directory
 * for the file store, both removed at the end. Throws when a loop does not run `turns` turns,
 * ends with another text, or sends other request bytes than the other loops.
 */
export async function runProviderBench(options: ProviderBenchOptions): Promise<ProviderBenchReport> {
  const { sizes, warmups, placement, early } = options;
  for (const { turns } of sizes) {
    if (!Number.isInteger(turns) || turns < 40) throw new RangeError(`Run lengths must be integers >= 40: ${turns}.`);
  }
  const results: AdapterResult[] = [];
  const syncMs = await measureSync();
  for (const spec of options.adapters) {
    const server = await startBenchServer(spec.format, placement);
    const directory = await mkdtemp(join(tmpdir(), `castellan-bench-${spec.name}-`));
    try {
      const model = spec.bind(server.url);
      const fileStore = createFileSessionStore({ directory });
      let runs = 0;
      /** One loop of `kind`, its timings and the request bytes the server received. */
      const loop = async (kind: LoopKind, turns: number): Promise<{ timings: TurnTimings; bytes: number }> => {
        await server.reset();
        options.gc?.();
        let timings: TurnTimings & { readonly text: string };
        if (kind === "bare") {
          timings = await runBareLoop({
            root: server.url,
            format: spec.format,
            model: spec.model,
            key: benchKey,
            turns,
          });
        } else if (kind === "sdk") {
          timings = await runBareLoop({
            root: server.url,
            format: spec.format,
            model: spec.model,
            key: benchKey,
            turns,
            sender: spec.sdk,
          });
        } else if (kind === "adapter") {
          timings = await runHandWrittenLoop(turns, model);
        } else {
          const store: SessionStore = kind === "memory" ? createMemorySessionStore() : fileStore;
          timings = await runCastellanLoop({ turns, store, sessionId: `${kind}-${turns}-${++runs}`, model });
        }
        if (timings.text !== finalText(turns)) throw new Error(`${spec.name} ${kind} ended with "${timings.text}".`);
        const stats = await server.stats();
        if (stats.requests !== turns)
          throw new Error(`${spec.name} ${kind}: ${stats.requests} requests, not ${turns}.`);
        return { timings, bytes: stats.bodyBytes.reduce((sum, bytes) => sum + bytes, 0) };
      };
      const sizeResults: SizeResult[] = [];
      for (const { turns, repeats } of sizes) {
        options.progress?.(`${spec.name}, N=${turns}: ${warmups} warm-up + ${repeats} timed rounds of each loop`);
        const timed: Record<LoopKind, TurnTimings[]> = { bare: [], sdk: [], adapter: [], memory: [], file: [] };
        const kinds = loopsOf(spec);
        let requestBytes: number | undefined;
        for (let round = 0; round < warmups + repeats; round++) {
          for (let index = 0; index < kinds.length; index++) {
            const kind = kinds[(round + index) % kinds.length] as LoopKind;
            const { timings, bytes } = await loop(kind, turns);
            requestBytes ??= bytes;
            if (bytes !== requestBytes) {
              throw new Error(`${spec.name} ${kind}: ${bytes} request bytes per Run, the other loops ${requestBytes}.`);
            }
            if (round >= warmups) timed[kind].push(timings);
          }
        }
        const result = (kind: LoopKind): LoopResult => {
          const totals = timed[kind].map((timings) => timings.totalMs);
          return { totals, totalMs: median(totals), perTurn: summarize(timed[kind], early, lateWindow(turns)) };
        };
        const sdk = spec.sdk ? result("sdk") : undefined;
        const loops = {
          bare: result("bare"),
          adapter: result("adapter"),
          memory: result("memory"),
          file: result("file"),
          ...(sdk ? { sdk } : {}),
        };
        sizeResults.push({
          turns,
          repeats,
          loops,
          requestBytes: requestBytes ?? 0,
          sdkRatio: sdk ? sdk.totalMs / loops.bare.totalMs : undefined,
          adapterRatio: loops.adapter.totalMs / loops.bare.totalMs,
          memoryRatio: loops.memory.totalMs / loops.bare.totalMs,
          fileRatio: loops.file.totalMs / loops.bare.totalMs,
        });
      }
      results.push({ adapter: spec.name, sizes: sizeResults });
    } finally {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    }
  }
  return {
    options: { sizes, warmups, placement, early },
    results,
    syncMs,
    gcBetweenLoops: options.gc !== undefined,
    nodeVersion: process.version,
  };
}

/**
 * The median time of appending ~1 KiB to a file and datasyncing it, over 101 appends in a temp
 * directory like the file store's: the floor of a durable append on this disk.
 */
export async function measureSync(): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), "castellan-bench-sync-"));
  try {
    const handle = await open(join(directory, "log.jsonl"), "a");
    try {
      const line = Buffer.from(`${"x".repeat(1023)}\n`);
      const times: number[] = [];
      for (let index = 0; index < 101; index++) {
        const start = performance.now();
        await handle.write(line);
        await handle.datasync();
        times.push(performance.now() - start);
      }
      return median(times);
    } finally {
      await handle.close();
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
