// The commands bench: for each subject, the spawn-to-first-stdout-byte latency of `printf x`
// (median of N runs, in rotating order), the time to drain `head -c BYTES /dev/zero`, and the
// host's peak RSS growth while streaming it.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "../stats.ts";
import { type Subject, type SubjectName, startSubjects, subjectNames } from "./subjects.ts";

export interface CommandsBenchOptions {
  /** Latency runs per subject. Default 50. */
  readonly runs: number;
  /** Bytes each subject drains. Default 1 GiB. */
  readonly drainBytes: number;
  /** Where bwrap is. */
  readonly bwrap: string;
  readonly progress?: (message: string) => void;
}

export interface SubjectFigures {
  /** Median spawn-to-first-byte latency, ms. */
  readonly latencyMs: number;
  /** Time to drain `drainBytes`, ms. */
  readonly drainMs: number;
  /** MiB/s drained. */
  readonly throughput: number;
  /** Peak growth of this process's RSS while draining, bytes. */
  readonly rssGrowth: number;
}

export interface CommandsBenchReport {
  readonly runs: number;
  readonly drainBytes: number;
  readonly subjects: Readonly<Record<SubjectName, SubjectFigures>>;
  /** The bubblewrap floor's median latency, ms. */
  readonly floorLatencyMs: number;
}

export const defaultCommandsBenchOptions = { runs: 50, drainBytes: 1024 ** 3 } as const;

async function drain(subject: Subject, bytes: number): Promise<{ ms: number; rssGrowth: number }> {
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const figures = await subject(`head -c ${bytes} /dev/zero`);
    if (figures.bytes !== bytes) throw new Error(`A drain read ${figures.bytes} bytes, not ${bytes}.`);
    return { ms: figures.totalMs, rssGrowth: Math.max(0, peak - baseline) };
  } finally {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
}

export async function runCommandsBench(options: CommandsBenchOptions): Promise<CommandsBenchReport> {
  const directory = await realpath(await mkdtemp(join(tmpdir(), "castellan-bench-commands-")));
  const subjects = await startSubjects(directory, options.bwrap);
  try {
    const latencies = new Map<SubjectName | "floor", number[]>();
    const all: [SubjectName | "floor", Subject][] = [
      ...subjectNames.map((name) => [name, subjects.run[name]] as [SubjectName, Subject]),
      ["floor", subjects.floor],
    ];
    // One warm-up each, then rounds in rotating order so drift hits every subject alike.
    for (const [, subject] of all) await subject("printf x");
    for (let round = 0; round < options.runs; round++) {
      for (let index = 0; index < all.length; index++) {
        const [name, subject] = all[(index + round) % all.length] as [SubjectName | "floor", Subject];
        const figures = await subject("printf x");
        if (figures.bytes !== 1) throw new Error(`${name}: printf x gave ${figures.bytes} bytes.`);
        const list = latencies.get(name) ?? [];
        list.push(figures.firstByteMs);
        latencies.set(name, list);
      }
    }
    options.progress?.(`latency: ${options.runs} runs per subject done`);
    const figures = {} as Record<SubjectName, SubjectFigures>;
    for (const name of subjectNames) {
      const drained = await drain(subjects.run[name], options.drainBytes);
      options.progress?.(`drain: ${name} done`);
      figures[name] = {
        latencyMs: median(latencies.get(name) ?? []),
        drainMs: drained.ms,
        throughput: options.drainBytes / 1024 ** 2 / (drained.ms / 1000),
        rssGrowth: drained.rssGrowth,
      };
    }
    return {
      runs: options.runs,
      drainBytes: options.drainBytes,
      subjects: figures,
      floorLatencyMs: median(latencies.get("floor") ?? []),
    };
  } finally {
    await subjects.close();
    await rm(directory, { recursive: true, force: true });
  }
}
