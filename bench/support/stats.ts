// Per-turn durations and the summaries the report prints.

/** Inclusive 1-based range of turns. */
export interface TurnWindow {
  readonly from: number;
  readonly to: number;
}

export interface WindowStats {
  readonly window: TurnWindow;
  /** Milliseconds. */
  readonly median: number;
  readonly mean: number;
  readonly samples: number;
}

export interface TurnTimings {
  /** `durations[t - 1]` is the wall time of turn t in ms, from its start to the next turn's start. */
  readonly durations: readonly number[];
  /** Wall time of the whole loop in ms. */
  readonly totalMs: number;
}

/**
 * Durations of turns 1..starts.length-1 from the start times of consecutive turns (the last
 * start has no successor and is left out).
 */
export function durationsFromStarts(starts: readonly number[]): number[] {
  const durations: number[] = [];
  for (let index = 1; index < starts.length; index++) {
    durations.push((starts[index] as number) - (starts[index - 1] as number));
  }
  return durations;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The mean of `values` without the slowest `trim` share (default 5%): on a shared machine a
 * few turns are stalled by another process or a collection, and one 30 ms stall in a 50 ms Run
 * would otherwise decide a comparison. Every loop of a comparison is trimmed alike.
 */
export function trimmedMean(values: readonly number[], trim = 0.05): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const kept = sorted.slice(0, Math.max(1, Math.ceil(sorted.length * (1 - trim))));
  return mean(kept);
}

/**
 * A loop's typical whole-Run time: its turns pooled over the timed Runs, the slowest 5% left
 * out, the mean of the rest times the Run's length.
 */
export function typicalRunMs(runs: readonly TurnTimings[]): number {
  const turns = runs[0]?.durations.length ?? 0;
  return trimmedMean(runs.flatMap((run) => run.durations)) * turns;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** The durations of the turns in `window` of one loop; throws when the timings do not cover it. */
export function windowSamples(timings: TurnTimings, window: TurnWindow): number[] {
  if (window.from < 1 || window.to < window.from || window.to > timings.durations.length) {
    throw new RangeError(
      `Window of turns ${window.from}-${window.to} is outside the ${timings.durations.length} timed turns.`,
    );
  }
  return timings.durations.slice(window.from - 1, window.to);
}

/** Median and mean of the turns in `window`, pooled over every loop in `runs`. */
export function windowStats(runs: readonly TurnTimings[], window: TurnWindow): WindowStats {
  const samples = runs.flatMap((timings) => windowSamples(timings, window));
  return { window, median: median(samples), mean: mean(samples), samples: samples.length };
}

export interface LoopSummary {
  readonly early: WindowStats;
  readonly late: WindowStats;
  /** late / early, of the medians. */
  readonly ratio: number;
  /** late / early, of the means. */
  readonly meanRatio: number;
  /** How many loops were pooled. */
  readonly runs: number;
  /** Median wall time of a whole loop, ms. */
  readonly totalMs: number;
}

/** Summarizes one or more loops of the same size: their window samples are pooled. */
export function summarize(runs: readonly TurnTimings[], early: TurnWindow, late: TurnWindow): LoopSummary {
  if (runs.length === 0) throw new RangeError("Nothing to summarize: no loops were timed.");
  const earlyStats = windowStats(runs, early);
  const lateStats = windowStats(runs, late);
  return {
    early: earlyStats,
    late: lateStats,
    ratio: lateStats.median / earlyStats.median,
    meanRatio: lateStats.mean / earlyStats.mean,
    runs: runs.length,
    totalMs: median(runs.map((timings) => timings.totalMs)),
  };
}

/** The 50th and 99th percentiles of a sample (nearest rank). */
export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
}

/** p50 and p99 by nearest rank; NaN for an empty sample. */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
}
