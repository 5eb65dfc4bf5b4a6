// `npm run bench:store-growth [-- sizes [layers]]`: does a turn cost the file store the same at
// turn 400 as at turn 10? One Run of N turns (default N = 50 and 400, interleaved; one read-only
// tool call a turn, then a text answer) with the memory store and with the file store, side by
// side, in three layers: the store alone (the appends a Run makes), the runner with the instant
// model, and the runner with the openai-compatible adapter against the loopback fixture server
// (in a child process). It prints each store's per-turn time early and late, and what the file
// store adds to a turn early and late. `sizes` is a comma-separated list of Run lengths and
// `layers` one of store, instant, adapter or a comma-separated list (e.g. `-- 50,400,4000
// store`). The targets are informational; the script exits 0 unless something crashes.
import { fullGc } from "./support/gc.ts";
import { defaultStoreGrowthOptions, type Layer, layers, runStoreGrowthBench } from "./support/store-growth/bench.ts";
import { formatStoreGrowthReport } from "./support/store-growth/report.ts";

const defaults = defaultStoreGrowthOptions();
const [sizesArgument, layersArgument] = process.argv.slice(2);
const sizes =
  sizesArgument === undefined ? defaults.sizes : sizesArgument.split(",").map((size) => ({ turns: Number(size) }));
const chosen = layersArgument === undefined ? defaults.layers : (layersArgument.split(",") as Layer[]);
for (const layer of chosen) {
  if (!layers.includes(layer)) throw new RangeError(`layers are ${layers.join(", ")}, not ${layer}.`);
}

const report = await runStoreGrowthBench({
  ...defaults,
  sizes,
  layers: chosen,
  gc: fullGc(),
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatStoreGrowthReport(report));
