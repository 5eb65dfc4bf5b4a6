// `npm run bench:runner-cost`: what the runner adds per turn beside a real adapter. One
// adapter (openai-compatible by default; `BENCH_ADAPTER` names another) against its loopback
// fixture server in a child process: the adapter alone driven by a hand-written loop, and the
// same adapter under the runner with the memory store, side by side in rounds of alternating
// order, at N turns (default 400; `BENCH_TURNS`). Prints both per-turn medians, early and late,
// and their difference: the runner's cost per turn. Run it under `node --cpu-prof` or
// `--trace-gc` to see where that cost goes (bench/README.md has the findings).
import { createMemorySessionStore } from "@castellan/node-runner";
import { runCastellanLoop } from "./support/castellan-loop.ts";
import { runHandWrittenLoop } from "./support/hand-loop.ts";
import { type AdapterName, adapters } from "./support/providers/adapters.ts";
import { finalText } from "./support/providers/answers.ts";
import { lateWindow } from "./support/providers/bench.ts";
import { startBenchServer } from "./support/providers/server-process.ts";
import { median, summarize, type TurnTimings } from "./support/stats.ts";

const name = (process.env.BENCH_ADAPTER ?? "openai-compatible") as AdapterName;
const turns = Number(process.env.BENCH_TURNS ?? 400);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
/** `adapter` or `memory` runs one loop only, to profile it alone. */
const only = process.env.BENCH_ONLY;
const spec = adapters.find((adapter) => adapter.name === name);
if (!spec) throw new Error(`No adapter "${name}"; one of ${adapters.map((adapter) => adapter.name).join(", ")}.`);

const server = await startBenchServer(spec.format, "child-process");
try {
  const model = spec.bind(server.url);
  const timed: Record<"adapter" | "memory", TurnTimings[]> = { adapter: [], memory: [] };
  for (let round = 0; round < rounds + 1; round++) {
    for (const kind of round % 2 === 0 ? (["adapter", "memory"] as const) : (["memory", "adapter"] as const)) {
      if (only !== undefined && kind !== only) continue;
      await server.reset();
      const timings =
        kind === "adapter"
          ? await runHandWrittenLoop(turns, model)
          : await runCastellanLoop({ turns, store: createMemorySessionStore(), sessionId: `m-${round}`, model });
      if (timings.text !== finalText(turns)) throw new Error(`${kind} ended with "${timings.text}".`);
      if (round > 0) timed[kind].push(timings);
    }
  }
  if (only !== undefined) {
    const kind = only as "adapter" | "memory";
    process.stdout.write(`${kind} alone: whole Run ${median(timed[kind].map((t) => t.totalMs)).toFixed(1)} ms\n`);
    process.exit(0);
  }
  const early = { from: 10, to: 20 };
  const late = lateWindow(turns);
  const adapter = summarize(timed.adapter, early, late);
  const memory = summarize(timed.memory, early, late);
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  const lines = [
    `runner cost beside ${name}, N=${turns}, ${rounds} rounds (medians per turn)`,
    `  adapter alone: early ${ms(adapter.early.median)}, late ${ms(adapter.late.median)}, whole Run ${ms(median(timed.adapter.map((t) => t.totalMs)))}`,
    `  runner+memory: early ${ms(memory.early.median)}, late ${ms(memory.late.median)}, whole Run ${ms(median(timed.memory.map((t) => t.totalMs)))}`,
    `  runner's share: early ${ms(memory.early.median - adapter.early.median)}, late ${ms(memory.late.median - adapter.late.median)} per turn`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  await server.close();
}
