// The whole benchmark as one function of its size, so the smoke test can run it small.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSessionStore, createMemorySessionStore, type SessionStore } from "@castellan/node-runner";
import { benchAgent, runCastellanLoop } from "./castellan-loop.ts";
import { runHandWrittenLoop } from "./hand-loop.ts";
import { measureReopen, type ReopenTimings } from "./reopen.ts";
import { type LoopSummary, summarize, type TurnTimings, type TurnWindow } from "./stats.ts";

/** Targets: informational, printed beside the figures. */
export const targets = { maxLateOverEarly: 1.5, maxReopenOverRaw: 3 } as const;

export interface BenchOptions {
  /** Turns of each measured Run: turns-1 tool-call turns, then a final text answer. */
  readonly turns: number;
  /** Measured Runs per loop kind; their window samples are pooled (a Run is always one Run of `turns`). */
  readonly runs: number;
  /** Turns of the discarded warm-up Runs (0: none). */
  readonly warmupTurns: number;
  readonly early: TurnWindow;
  readonly late: TurnWindow;
  /** Timed repetitions of each reopen measurement (medians are reported). */
  readonly reopenRepeats: number;
  /** Called with a line at the start of each phase. */
  readonly progress?: (message: string) => void;
}

/**
 * The defaults: windows of turns 10-20 and of the last 11 tool-call turns (the final turn
 * answers with text and ends the Run, so it does other work and is left out), each pooled over
 * 3 Runs, because 11 fsync-bound turns on a shared machine are noisy.
 */
export function defaultOptions(turns = 1000): BenchOptions {
  return {
    turns,
    runs: 3,
    warmupTurns: 300,
    early: { from: 10, to: 20 },
    late: { from: turns - 11, to: turns - 1 },
    reopenRepeats: 5,
  };
}

export interface PhaseMemory {
  readonly phase: string;
  /** Resident set size after the phase (after a GC where available), MiB. */
  readonly rssMiB: number;
}

export interface BenchReport {
  readonly options: Omit<BenchOptions, "progress">;
  readonly handWritten: LoopSummary;
  readonly memoryStore: LoopSummary;
  readonly fileStore: LoopSummary;
  /** The same Runs with a state write (ctx.setState) in every tool-call turn. */
  readonly memoryStoreState: LoopSummary;
  readonly fileStoreState: LoopSummary;
  /** Castellan (memory store) over the hand-written loop, of the window medians. */
  readonly overhead: { readonly early: number; readonly late: number };
  /** Reopening the last file-store Run with state writes. */
  readonly reopen: ReopenTimings;
  readonly memory: readonly PhaseMemory[];
  /** process.resourceUsage().maxRSS at the end, MiB. */
  readonly peakRssMiB: number;
  readonly gcBetweenPhases: boolean;
  readonly nodeVersion: string;
}

const mib = (bytes: number) => bytes / (1024 * 1024);

async function repeat(runs: number, loop: (index: number) => Promise<TurnTimings>): Promise<TurnTimings[]> {
  const timings: TurnTimings[] = [];
  for (let index = 1; index <= runs; index++) timings.push(await loop(index));
  return timings;
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const { turns, runs, warmupTurns, early, late, reopenRepeats } = options;
  const progress = options.progress ?? (() => {});
  const gc = (globalThis as { gc?: () => void }).gc;
  const memory: PhaseMemory[] = [];
  const endPhase = (phase: string) => {
    gc?.();
    memory.push({ phase, rssMiB: mib(process.memoryUsage.rss()) });
  };
  endPhase("start");
  const directory = await mkdtemp(join(tmpdir(), "castellan-bench-"));
  try {
    if (warmupTurns > 0) {
      progress(`warm-up: ${warmupTurns} turns of each loop, discarded`);
      await runHandWrittenLoop(warmupTurns);
      await runCastellanLoop({ turns: warmupTurns, store: createMemorySessionStore(), sessionId: "warm-up" });
      const warmStore = createFileSessionStore({ directory: join(directory, "warm-up") });
      await runCastellanLoop({ turns: warmupTurns, store: warmStore, sessionId: "warm-up" });
      await runCastellanLoop({ turns: warmupTurns, store: warmStore, sessionId: "warm-up-state", state: true });
      endPhase("warm-up");
    }

    progress(`hand-written loop: ${runs} x ${turns} turns`);
    const handWritten = summarize(await repeat(runs, () => runHandWrittenLoop(turns)), early, late);
    endPhase("hand-written");

    progress(`castellan, memory store: ${runs} Runs of ${turns} turns`);
    const memoryRuns = await repeat(runs, (index) =>
      runCastellanLoop({ turns, store: createMemorySessionStore(), sessionId: `bench-memory-${index}` }),
    );
    const memoryStore = summarize(memoryRuns, early, late);
    endPhase("memory store");

    progress(`castellan, file store: ${runs} Runs of ${turns} turns`);
    const store: SessionStore = createFileSessionStore({ directory });
    const sessionId = (index: number) => `bench-file-${index}`;
    const fileRuns = await repeat(runs, (index) => runCastellanLoop({ turns, store, sessionId: sessionId(index) }));
    const fileStore = summarize(fileRuns, early, late);
    endPhase("file store");

    progress(`castellan + state, memory store: ${runs} Runs of ${turns} turns`);
    const memoryStateRuns = await repeat(runs, (index) =>
      runCastellanLoop({
        turns,
        store: createMemorySessionStore(),
        sessionId: `bench-memory-state-${index}`,
        state: true,
      }),
    );
    const memoryStoreState = summarize(memoryStateRuns, early, late);
    endPhase("memory store + state");

    progress(`castellan + state, file store: ${runs} Runs of ${turns} turns`);
    const stateSessionId = (index: number) => `bench-file-state-${index}`;
    const fileStateRuns = await repeat(runs, (index) =>
      runCastellanLoop({ turns, store, sessionId: stateSessionId(index), state: true }),
    );
    const fileStoreState = summarize(fileStateRuns, early, late);
    endPhase("file store + state");

    progress(`reopen: ${reopenRepeats} times each`);
    const reopened = stateSessionId(runs);
    const reopen = await measureReopen({
      agent: benchAgent(turns, { state: true }),
      store,
      sessionId: reopened,
      logPath: join(directory, `${encodeURIComponent(reopened)}.jsonl`),
      repeats: reopenRepeats,
    });
    endPhase("reopen");

    return {
      options: { turns, runs, warmupTurns, early, late, reopenRepeats },
      handWritten,
      memoryStore,
      fileStore,
      memoryStoreState,
      fileStoreState,
      overhead: {
        early: memoryStore.early.median / handWritten.early.median,
        late: memoryStore.late.median / handWritten.late.median,
      },
      reopen,
      memory,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      gcBetweenPhases: gc !== undefined,
      nodeVersion: process.version,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
