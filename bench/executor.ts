// `npm run bench:executor [-- --jobs N --turns T --turn-ms MS --idle-seconds S]`: one executor
// server running 50 concurrent scripted coding jobs (clone a local bare repository, 20 turns of
// 100 ms alternating a sandboxed `true` and an edit, commit and push), a poller per job at
// 4 Hz; beside the same pollers on the idle server polling one finished job, and, during the
// load, a floor (a process answering a constant view, polled the same way). Prints poll
// latency p50/p99 under load, idle and at the floor with the ratios, the event-loop delay p99, and the
// server's RSS (its sandbox worker processes and spawn broker included) idle, at its peak and
// per job. Targets: p99 under load at most 5x idle and under
// 50 ms. Needs bwrap, socat and rg; stops by itself within 10 minutes. Targets are informational.
import { parseArgs } from "node:util";
import { checkSandboxDependencies } from "@castellan/node-runner";
import { defaultExecutorBenchOptions, formatExecutorBenchReport, runExecutorBench } from "./support/executor/bench.ts";

const { values } = parseArgs({
  options: {
    jobs: { type: "string" },
    turns: { type: "string" },
    "turn-ms": { type: "string" },
    "idle-seconds": { type: "string" },
  },
});

function positive(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`--${name} must be a positive integer, not ${text}.`);
  return value;
}

checkSandboxDependencies();
const report = await runExecutorBench({
  jobs: positive(values.jobs, defaultExecutorBenchOptions.jobs, "jobs"),
  turns: positive(values.turns, defaultExecutorBenchOptions.turns, "turns"),
  turnMs: positive(values["turn-ms"], defaultExecutorBenchOptions.turnMs, "turn-ms"),
  idleMs: positive(values["idle-seconds"], defaultExecutorBenchOptions.idleMs / 1_000, "idle-seconds") * 1_000,
  limitMs: defaultExecutorBenchOptions.limitMs,
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatExecutorBenchReport(report));
