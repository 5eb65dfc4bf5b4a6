// The providers bench as one function of its options, so the smoke test can run it small. For
// each adapter: one fixture server, then for each Run length warm-up rounds and timed rounds of
// the loops (see LoopKind), the order rotating each round so drift on a shared machine hits
// them alike, and the targets computed against the floors measured beside them. The cost of
// one synced append on the bench's disk is measured too: a durable tool turn cannot cost less
// than one.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSessionStore, createMemorySessionStore, type SessionStore } from "@castellan/node-runner";
import { runCastellanLoop } from "../castellan-loop.ts";
import { runHandWrittenLoop } from "../hand-loop.ts";
import {
  type LoopSummary,
  median,
  summarize,
  type TurnTimings,
  type TurnWindow,
  trimmedMean,
  typicalRunMs,
} from "../stats.ts";
import { timedStore } from "../store-growth/timed-store.ts";
import { type AdapterName, type AdapterSpec, adapters, benchKey } from "./adapters.ts";
import { runAiSdkLoop } from "./ai-sdk-loop.ts";
import { finalText } from "./answers.ts";
import { runBareLoop } from "./bare-loop.ts";
import { type ServerPlacement, startBenchServer } from "./server-process.ts";

/**
 * The targets, each against a floor measured in the same run: the whole Castellan loop over the
 * floor loop (`sdk`: the same requests through the same SDK, no Castellan code; for the AI SDK
 * adapter, the same loop calling the wrapped model directly), the adapter alone over that floor,
 * the file store over the memory store with read-only tool turns, the file store with a tool that
 * has effects over the memory store plus one measured sync per turn, and late/early per-turn time
 * over the bare loop's own late/early.
 */
export const targets = {
  memoryOverFloor: 1.15,
  adapterOverFloor: 1.1,
  fileReadOnlyOverMemory: 1.1,
  fileOverMemoryPlusSyncs: 1.1,
  flatOverBare: 1.1,
} as const;

/**
 * The loops: `bare` (plain fetch, a hand-built body, a minimal SSE reader), `sdk` (the floor),
 * `adapter` (the adapter alone in a hand-written loop), and Castellan Runs with the memory and
 * the file store, with a tool that has effects (`memory`, `file`) and with a read-only one
 * (`memory-ro`, `file-ro`).
 */
export type LoopKind = "bare" | "sdk" | "adapter" | "memory" | "file" | "memory-ro" | "file-ro";
export const loopKinds: readonly LoopKind[] = ["bare", "sdk", "adapter", "memory", "file", "memory-ro", "file-ro"];

/** The loops run for `spec`: every one, the floor included (every adapter has one). */
export function loopsOf(spec: AdapterSpec): readonly LoopKind[] {
  return loopKinds.filter((kind) => kind !== "sdk" || spec.sdk !== undefined || spec.languageModel !== undefined);
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
  /** Rounds of a re-measure, run for a size when a target missed: the loops it compares, again. Default 0. */
  readonly remeasureRepeats?: number;
  /** A full GC, run before every timed loop when given. */
  readonly gc?: () => void;
  readonly progress?: (message: string) => void;
}

/**
 * Defaults: N = 50 (11 timed rounds: short Runs are cheap and noisier) and 400 (5 timed
 * rounds), each after 1 warm-up round, the server in a child process, and a missed target
 * re-measured with as many rounds again.
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
    remeasureRepeats: 5,
  };
}

export interface LoopResult {
  /** Whole-Run wall times of the timed rounds, ms. */
  readonly totals: readonly number[];
  /** Their median. */
  readonly totalMs: number;
  /** The typical whole Run: the timed turns pooled, the slowest 5% left out, their mean times N (what the targets compare). */
  readonly typicalMs: number;
  /** Per-turn windows pooled over the rounds. */
  readonly perTurn: LoopSummary;
  /** File-store loops: the appends a Run waited on (its start, each durable intent, its end), median. */
  readonly waitedAppends?: number;
}

/** One target's figure and limit, and whether it was re-measured after a miss. */
export interface TargetResult {
  readonly ratio: number;
  readonly limit: number;
  readonly pass: boolean;
  /** The figure of the first measurement, when a miss was re-measured (`ratio` is then the re-measure's). */
  readonly firstRatio?: number;
}

export type TargetName = keyof typeof targets;

export interface SizeResult {
  readonly turns: number;
  readonly repeats: number;
  readonly loops: Readonly<Record<LoopKind, LoopResult>>;
  /** Request body bytes of one Run (the same for every loop, checked each round). */
  readonly requestBytes: number;
  readonly targets: Readonly<Record<TargetName, TargetResult>>;
}

export interface AdapterResult {
  readonly adapter: AdapterName;
  readonly sizes: readonly SizeResult[];
}

export interface ProviderBenchReport {
  readonly options: Omit<ProviderBenchOptions, "adapters" | "gc" | "progress">;
  readonly results: readonly AdapterResult[];
  /** One append of ~1 KiB and its datasync in the file store's directory, ms: trimmed mean of the run's samples. */
  readonly syncMs: number;
  readonly gcBetweenLoops: boolean;
  readonly nodeVersion: string;
}

/** The late window of a Run of `turns`: its last 11 tool-call turns (the final text turn is left out). */
export function lateWindow(turns: number): TurnWindow {
  return { from: turns - 11, to: turns - 1 };
}

/** The loops each target compares (re-run together when it missed). */
const targetLoops: Readonly<Record<TargetName, readonly LoopKind[]>> = {
  memoryOverFloor: ["sdk", "memory"],
  adapterOverFloor: ["sdk", "adapter"],
  fileReadOnlyOverMemory: ["memory-ro", "file-ro"],
  fileOverMemoryPlusSyncs: ["memory", "file"],
  flatOverBare: ["bare", "memory", "file", "file-ro"],
};

/** Every target of one size, from its loops' results. */
function measureTargets(
  loops: Readonly<Record<LoopKind, LoopResult>>,
  turns: number,
  syncMs: number,
): Record<TargetName, TargetResult> {
  const verdict = (ratio: number, limit: number): TargetResult => ({ ratio, limit, pass: ratio <= limit });
  const bareFlat = loops.bare.perTurn.ratio;
  const flat = Math.max(
    ...(["memory", "file", "file-ro"] as const).map((kind) => loops[kind].perTurn.ratio / bareFlat),
  );
  const typical = (kind: LoopKind) => loops[kind].typicalMs;
  return {
    memoryOverFloor: verdict(typical("memory") / typical("sdk"), targets.memoryOverFloor),
    adapterOverFloor: verdict(typical("adapter") / typical("sdk"), targets.adapterOverFloor),
    fileReadOnlyOverMemory: verdict(typical("file-ro") / typical("memory-ro"), targets.fileReadOnlyOverMemory),
    fileOverMemoryPlusSyncs: verdict(
      typical("file") / (typical("memory") + turns * syncMs),
      targets.fileOverMemoryPlusSyncs,
    ),
    flatOverBare: verdict(flat, targets.flatOverBare),
  };
}

/**
 * Runs the bench: per adapter one fixture server (placed as `placement`) and one temp directory
 * for the file store, both removed at the end. Throws when a loop does not run `turns` turns,
 * ends with another text, or sends other request bytes than the other loops. A target a size
 * missed is re-measured at once (its loops again, `remeasureRepeats` rounds) and reported with
 * the re-measured figure; a limit is never changed.
 */
export async function runProviderBench(options: ProviderBenchOptions): Promise<ProviderBenchReport> {
  const { sizes, warmups, placement, early } = options;
  for (const { turns } of sizes) {
    if (!Number.isInteger(turns) || turns < 40) throw new RangeError(`Run lengths must be integers >= 40: ${turns}.`);
  }
  const results: AdapterResult[] = [];
  // Syncs are timed through the whole run, a few before every file-store loop, so the floor
  // they set reflects the disk as the file-store loops found it.
  const syncSamples: number[] = [...(await timeSyncs(101))];
  const syncMs = () => trimmedMean(syncSamples);
  for (const spec of options.adapters) {
    const server = await startBenchServer(spec.format, placement);
    const directory = await mkdtemp(join(tmpdir(), `castellan-bench-${spec.name}-`));
    try {
      const model = spec.bind(server.url);
      const fileStore = createFileSessionStore({ directory });
      let runs = 0;
      /** One loop of `kind`, its timings and the request bytes the server received. */
      const loop = async (
        kind: LoopKind,
        turns: number,
      ): Promise<{ timings: TurnTimings; bytes: number; waits?: number }> => {
        await server.reset();
        options.gc?.();
        let timings: TurnTimings & { readonly text: string };
        let waits: number | undefined;
        if (kind === "bare") {
          timings = await runBareLoop({
            root: server.url,
            format: spec.format,
            model: spec.model,
            key: benchKey,
            turns,
          });
        } else if (kind === "sdk") {
          timings = spec.languageModel
            ? await runAiSdkLoop(spec.languageModel(server.url), turns)
            : await runBareLoop({
                root: server.url,
                format: spec.format,
                model: spec.model,
                key: benchKey,
                turns,
                ...(spec.sdk ? { sender: spec.sdk } : {}),
              });
        } else if (kind === "adapter") {
          timings = await runHandWrittenLoop(turns, model);
        } else {
          const file = kind === "file" || kind === "file-ro";
          if (file) syncSamples.push(...(await timeSyncs(11)));
          const timed = file ? timedStore(fileStore) : undefined;
          const store: SessionStore = timed?.store ?? createMemorySessionStore();
          timings = await runCastellanLoop({
            turns,
            store,
            sessionId: `${kind}-${turns}-${++runs}`,
            model,
            readOnly: kind === "memory-ro" || kind === "file-ro",
          });
          waits = timed?.waits.length;
        }
        if (timings.text !== finalText(turns)) throw new Error(`${spec.name} ${kind} ended with "${timings.text}".`);
        const stats = await server.stats();
        if (stats.requests !== turns)
          throw new Error(`${spec.name} ${kind}: ${stats.requests} requests, not ${turns}.`);
        return {
          timings,
          bytes: stats.bodyBytes.reduce((sum, bytes) => sum + bytes, 0),
          ...(waits === undefined ? {} : { waits }),
        };
      };
      const kinds = loopsOf(spec);
      const sizeResults: SizeResult[] = [];
      for (const { turns, repeats } of sizes) {
        options.progress?.(`${spec.name}, N=${turns}: ${warmups} warm-up + ${repeats} timed rounds of each loop`);
        let requestBytes: number | undefined;
        /** `rounds` rounds of `only`'s loops, the order rotating each round; the first `skip` untimed. */
        const measure = async (only: readonly LoopKind[], rounds: number, skip: number) => {
          const timed = new Map<LoopKind, { timings: TurnTimings[]; waits: number[] }>(
            only.map((kind) => [kind, { timings: [], waits: [] }]),
          );
          for (let round = 0; round < skip + rounds; round++) {
            for (let index = 0; index < only.length; index++) {
              const kind = only[(round + index) % only.length] as LoopKind;
              const { timings, bytes, waits } = await loop(kind, turns);
              requestBytes ??= bytes;
              if (bytes !== requestBytes) {
                throw new Error(
                  `${spec.name} ${kind}: ${bytes} request bytes per Run, the other loops ${requestBytes}.`,
                );
              }
              if (round < skip) continue;
              timed.get(kind)?.timings.push(timings);
              if (waits !== undefined) timed.get(kind)?.waits.push(waits);
            }
          }
          const results = new Map<LoopKind, LoopResult>();
          for (const [kind, { timings, waits }] of timed) {
            const totals = timings.map((entry) => entry.totalMs);
            results.set(kind, {
              totals,
              totalMs: median(totals),
              typicalMs: typicalRunMs(timings),
              perTurn: summarize(timings, early, lateWindow(turns)),
              ...(waits.length > 0 ? { waitedAppends: median(waits) } : {}),
            });
          }
          return results;
        };
        const first = await measure(kinds, repeats, warmups);
        const loops = Object.fromEntries(first) as Record<LoopKind, LoopResult>;
        const measured = measureTargets(loops, turns, syncMs());
        const remeasureRepeats = options.remeasureRepeats ?? 0;
        const missed = (Object.keys(measured) as TargetName[]).filter((name) => !measured[name].pass);
        if (missed.length > 0 && remeasureRepeats > 0) {
          const again = [...new Set(missed.flatMap((name) => targetLoops[name]))];
          options.progress?.(`${spec.name}, N=${turns}: re-measuring ${missed.join(", ")} (${again.join(", ")})`);
          const second = { ...loops, ...Object.fromEntries(await measure(again, remeasureRepeats, 0)) };
          const remeasured = measureTargets(second, turns, syncMs());
          for (const name of missed) {
            measured[name] = { ...remeasured[name], firstRatio: measured[name].ratio };
          }
        }
        sizeResults.push({ turns, repeats, loops, requestBytes: requestBytes ?? 0, targets: measured });
      }
      results.push({ adapter: spec.name, sizes: sizeResults });
    } finally {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    }
  }
  return {
    options: {
      sizes,
      warmups,
      placement,
      early,
      ...(options.remeasureRepeats ? { remeasureRepeats: options.remeasureRepeats } : {}),
    },
    results,
    syncMs: syncMs(),
    gcBetweenLoops: options.gc !== undefined,
    nodeVersion: process.version,
  };
}

/**
 * The times of `count` appends of ~1 KiB to a file, each with its datasync, in a temp directory
 * like the file store's: the floor of a durable append on this disk.
 */
export async function timeSyncs(count: number): Promise<number[]> {
  const directory = await mkdtemp(join(tmpdir(), "castellan-bench-sync-"));
  try {
    const handle = await open(join(directory, "log.jsonl"), "a");
    try {
      const line = Buffer.from(`${"x".repeat(1023)}\n`);
      const times: number[] = [];
      for (let index = 0; index < count; index++) {
        const start = performance.now();
        await handle.write(line);
        await handle.datasync();
        times.push(performance.now() - start);
      }
      return times;
    } finally {
      await handle.close();
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
