// `npm run bench:mcp [-- --calls N --opens N]`: MCP calls and Session opens against
// server-everything over stdio, each beside a bare SDK client in the same run (see
// bench/support/mcp/bench.ts); prints p50/p99 and the ratios against the targets (per call
// within 1.25x, open within 1.2x). Defaults: 2,000 calls, 20 opens. Targets are informational.
import { parseArgs } from "node:util";
import { formatMcpBenchReport, runMcpBench } from "./support/mcp/bench.ts";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "2000" }, opens: { type: "string", default: "20" } },
});
const count = (text: string | undefined, name: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`--${name} must be a positive integer, not ${text}.`);
  return value;
};
const report = await runMcpBench({
  calls: count(values.calls, "calls"),
  opens: count(values.opens, "opens"),
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatMcpBenchReport(report));
