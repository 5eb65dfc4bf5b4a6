// The bench's deep-read section: `read_workspace_file` at a line far into a long generated
// file, beside `sed -n 'L{p;q}'` run through execFile (its process start included), in
// alternating rounds; then the peak RSS the read adds, measured in a child process per round.
// A target that misses is measured again at once and the second figure counts, with the first
// kept for the report; a target is never changed.
import { execFile } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../stats.ts";
import { checkDeepReadSize, type DeepReadSize, deepLine, writeDeepFile } from "./deep-file.ts";
import { bindReadTool, type ReadFromLine } from "./read-tool.ts";

/** The targets: the tool within 3x of sed's time, and the read adding under 64 MiB to the peak RSS. */
export const deepReadTargets = { ratio: 3, rssMebibytes: 64 } as const;

/** One target's figure against its limit. */
export interface DeepReadTarget {
  readonly value: number;
  readonly limit: number;
  readonly pass: boolean;
  /** The first measurement's figure, when it missed and was measured again (`value` is then the second's). */
  readonly first?: number;
}

/** The section's figures. */
export interface DeepReadResult {
  readonly lines: number;
  readonly startLine: number;
  /** Size of the generated file. */
  readonly bytes: number;
  /** Median ms of one tool call, in this process (binding the tools excluded). */
  readonly toolMs: number;
  /** Median ms of `sed -n 'L{p;q}'` through execFile, from the call to its output: its process start is included. */
  readonly sedMs: number;
  /** Median ms of `sed -n '1{p;q}'` on the same file: about what sed's process start costs alone. */
  readonly sedStartMs: number;
  /** toolMs / sedMs, at most 3. */
  readonly ratio: DeepReadTarget;
  /** The largest peak-RSS growth of one read over the child processes, MiB, under 64. */
  readonly rssGrowth: DeepReadTarget;
  /** The median of the same growths, MiB. */
  readonly rssGrowthMedian: number;
  /**
   * The median peak RSS of the child processes before the read (Node, the imports, the bound
   * tools), MiB: a read whose memory fits under it shows a growth of 0.
   */
  readonly rssBefore: number;
}

/** What to run. */
export interface DeepReadOptions {
  readonly size: DeepReadSize;
  /** Timed rounds (after one untimed warm-up round), and child processes of the RSS measurement. */
  readonly rounds: number;
  readonly progress?: (message: string) => void;
}

const childEntry = fileURLToPath(new URL("./deep-read-child.ts", import.meta.url));
/** The file's name in the section's directory (its workspace path). */
const fileName = "long-file.ts";

/** Resolves with a command's stdout and the ms from the call to its exit. */
function timedExecFile(command: string, args: readonly string[]): Promise<{ stdout: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const ms = performance.now() - started;
      if (error) reject(new Error(`${command} failed: ${error.message} ${stderr.slice(0, 500)}`));
      else resolve({ stdout, ms });
    });
  });
}

/** Median times of the tool, sed at the line, and sed at line 1; the order rotates each round. */
async function timeReads(
  read: ReadFromLine,
  file: string,
  startLine: number,
  rounds: number,
): Promise<{ toolMs: number; sedMs: number; sedStartMs: number }> {
  const expected = `${deepLine(startLine)}\n`;
  const runners = ["tool", "sed", "sed-start"] as const;
  const times: Record<(typeof runners)[number], number[]> = { tool: [], sed: [], "sed-start": [] };
  for (let round = 0; round <= rounds; round++) {
    for (let index = 0; index < runners.length; index++) {
      const runner = runners[(round + index) % runners.length] as (typeof runners)[number];
      let ms: number;
      if (runner === "tool") {
        const started = performance.now();
        const page = await read(fileName, startLine);
        ms = performance.now() - started;
        if (page.startLine !== startLine || !page.text.startsWith(expected)) {
          throw new Error(
            `The tool's page does not start with line ${startLine}: ${JSON.stringify(page.text.slice(0, 80))}.`,
          );
        }
      } else {
        const script = runner === "sed" ? `${startLine}{p;q}` : "1{p;q}";
        const found = await timedExecFile("sed", ["-n", script, file]);
        ms = found.ms;
        const line = runner === "sed" ? expected : `${deepLine(1)}\n`;
        if (found.stdout !== line) throw new Error(`sed printed ${JSON.stringify(found.stdout.slice(0, 80))}.`);
      }
      if (round > 0) times[runner].push(ms);
    }
  }
  return { toolMs: median(times.tool), sedMs: median(times.sed), sedStartMs: median(times["sed-start"]) };
}

/**
 * Linux carries the RSS of the memory a process had before `execve` into its `maxRSS`, and a
 * child spawned from this process starts as a copy of it (over 100 MiB after the literal
 * section), which would hide the read under this process's size. So each child is started by
 * `sh`, which forks it (the command is not the script's last, so it is not exec'd): it then
 * starts from the shell's few MiB and its `maxRSS` is its own.
 */
const launcher = ["-c", '"$@"; exit $?', "sh"];

/** The peak RSS before the read and its growth over the read, in each of `rounds` child processes, one at a time, MiB. */
async function measureGrowth(
  directory: string,
  startLine: number,
  rounds: number,
): Promise<{ before: number[]; growths: number[] }> {
  const before: number[] = [];
  const growths: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const { stdout } = await timedExecFile("sh", [
      ...launcher,
      process.execPath,
      childEntry,
      directory,
      fileName,
      String(startLine),
    ]);
    const { beforeKilobytes, afterKilobytes } = JSON.parse(stdout) as {
      beforeKilobytes: number;
      afterKilobytes: number;
    };
    before.push(beforeKilobytes / 1024);
    growths.push((afterKilobytes - beforeKilobytes) / 1024);
  }
  return { before, growths };
}

/** tool/sed against its limit (at most). */
const ratioTarget = (value: number, first?: number): DeepReadTarget => ({
  value,
  limit: deepReadTargets.ratio,
  pass: value <= deepReadTargets.ratio,
  ...(first === undefined ? {} : { first }),
});

/** The largest RSS growth against its limit (under). */
const growthTarget = (value: number, first?: number): DeepReadTarget => ({
  value,
  limit: deepReadTargets.rssMebibytes,
  pass: value < deepReadTargets.rssMebibytes,
  ...(first === undefined ? {} : { first }),
});

/**
 * Writes the file in `deep-read/` under `directory` (removed again however the section ends),
 * times the reads, measures the RSS growth, and measures again whatever missed its target.
 */
export async function runDeepReadSection(directory: string, options: DeepReadOptions): Promise<DeepReadResult> {
  checkDeepReadSize(options.size);
  const { lines, startLine } = options.size;
  const folder = join(directory, "deep-read");
  const file = join(folder, fileName);
  await mkdir(folder);
  try {
    options.progress?.(`deep read: writing ${lines} lines to ${file}`);
    const bytes = await writeDeepFile(file, lines);
    const read = bindReadTool(folder);
    options.progress?.(`deep read: line ${startLine}, ${options.rounds} round(s) of the tool and sed`);
    let times = await timeReads(read, file, startLine, options.rounds);
    let ratio = ratioTarget(times.toolMs / times.sedMs);
    if (!ratio.pass) {
      options.progress?.(`deep read: tool/sed ${ratio.value.toFixed(2)}x missed; measuring again`);
      times = await timeReads(read, file, startLine, options.rounds);
      ratio = ratioTarget(times.toolMs / times.sedMs, ratio.value);
    }
    options.progress?.(`deep read: peak RSS of the read in ${options.rounds} child process(es)`);
    let memory = await measureGrowth(folder, startLine, options.rounds);
    let rssGrowth = growthTarget(Math.max(...memory.growths));
    if (!rssGrowth.pass) {
      options.progress?.(`deep read: RSS growth ${rssGrowth.value.toFixed(1)} MiB missed; measuring again`);
      memory = await measureGrowth(folder, startLine, options.rounds);
      rssGrowth = growthTarget(Math.max(...memory.growths), rssGrowth.value);
    }
    return {
      lines,
      startLine,
      bytes,
      ...times,
      ratio,
      rssGrowth,
      rssGrowthMedian: median(memory.growths),
      rssBefore: median(memory.before),
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
