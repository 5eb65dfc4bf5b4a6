// `npm run bench:browser [-- --rounds N --warmups W]`: navigate, snapshot and click through the
// browser tools in a Session beside raw playwright-core on the same Chromium, alternating, with
// the same AI snapshot after each raw action (see bench/support/browser/bench.ts). Prints median
// and p95 per side and the ratio of medians per action. Target: at most 1.5x per action
// (informational). Needs /usr/bin/chromium.
import { parseArgs } from "node:util";
import { defaultBrowserBenchOptions, formatBrowserBenchReport, runBrowserBench } from "./support/browser/bench.ts";

const { values } = parseArgs({ options: { rounds: { type: "string" }, warmups: { type: "string" } } });
const count = (text: string | undefined, fallback: number, name: string, minimum: number) => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum)
    throw new RangeError(`--${name} must be an integer of at least ${minimum}, not ${text}.`);
  return value;
};
const report = await runBrowserBench({
  rounds: count(values.rounds, defaultBrowserBenchOptions.rounds, "rounds", 1),
  warmups: count(values.warmups, defaultBrowserBenchOptions.warmups, "warmups", 0),
  rows: defaultBrowserBenchOptions.rows,
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatBrowserBenchReport(report));
