// `npm run bench:commands [-- --runs N --megabytes M]`: how commands start and stream through
// bare child_process.spawn (the baseline), the unsandboxed supervisor, the in-process sandbox
// runtime (the raw sandbox plugin's path) and a sandbox worker (an OS workspace()'s path):
// the spawn-to-first-stdout-byte latency of `printf x` (median of 50 runs by default, beside
// the floor of a bare `bwrap --ro-bind / / --dev /dev --unshare-pid`), the time to drain
// 1 GiB (`head -c 1073741824 /dev/zero`) and the host's peak RSS growth meanwhile, each with
// its ratio to its baseline and the targets (unsandboxed within 1.5x of bare spawn; sandboxed
// drain within 2x of bare spawn; sandboxed latency within 3x of the bwrap floor; RSS growth
// under 100 MiB). Needs bwrap, socat and rg. BENCH_COMMANDS_RUNS and BENCH_COMMANDS_MEGABYTES
// work too. Targets are informational.
import { parseArgs } from "node:util";
import { checkSandboxDependencies } from "@castellan/node-runner";
import { defaultCommandsBenchOptions, runCommandsBench } from "./support/commands/bench.ts";
import { formatCommandsBenchReport } from "./support/commands/report.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: process.env.BENCH_COMMANDS_RUNS },
    megabytes: { type: "string", default: process.env.BENCH_COMMANDS_MEGABYTES },
  },
});

function positive(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`--${name} must be a positive number, not ${text}.`);
  return value;
}

const { bwrap } = checkSandboxDependencies();
const report = await runCommandsBench({
  runs: Math.round(positive(values.runs, defaultCommandsBenchOptions.runs, "runs")),
  drainBytes: Math.round(
    positive(values.megabytes, defaultCommandsBenchOptions.drainBytes / 1024 ** 2, "megabytes") * 1024 ** 2,
  ),
  bwrap,
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatCommandsBenchReport(report));
