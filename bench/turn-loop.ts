// `npm run bench:turn-loop [-- turns]`: is the per-turn cost of one long Run flat, or does it
// grow with the history, with and without a state write (ctx.setState) in every turn? Phases
// and windows: support/bench.ts. The targets are informational; the script exits 0 unless
// something crashes.
import { defaultOptions, runBench } from "./support/bench.ts";
import { formatReport } from "./support/report.ts";

const turns = process.argv[2] === undefined ? 1000 : Number(process.argv[2]);
if (!Number.isInteger(turns) || turns < 40)
  throw new RangeError(`turns must be an integer >= 40, not ${process.argv[2]}.`);

const report = await runBench({
  ...defaultOptions(turns),
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatReport(report));
