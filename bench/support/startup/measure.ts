// Start-up time: how long a process takes from spawn to exit when it imports the runner and
// one adapter and opens (and closes) a memory Session, beside a process that does nothing
// (`node -e 0`). The difference is what Castellan adds to a program's start.
import { spawn } from "node:child_process";
import { median } from "../stats.ts";

/** An agent of the probes: one tool, so opening compiles a schema as a real agent's would. */
const agentWith = (model: string) => `defineAgent("bench.startup", { model: ${model}, tools: [defineTool({
      name: "look", description: "Look", readOnly: true,
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      execute: () => "seen" })] })`;

/** The probes a start-up run compares: each is a script run with `node --input-type=module -e`. */
export const startupProbes = {
  /** Node's own start: the floor. */
  node: "",
  /** The runner with the offline model: no provider SDK at all. */
  offline: `
    import { defineAgent, defineTool } from "@castellan/harness";
    import { offline } from "@castellan/models/offline";
    import { createMemorySessionStore, openSession } from "@castellan/node-runner";
    const session = await openSession({ agent: ${agentWith("offline()")}, store: createMemorySessionStore() });
    await session.close();`,
  "openai-compatible": `
    import { defineAgent, defineTool } from "@castellan/harness";
    import { openaiCompatible } from "@castellan/models/openai-compatible";
    import { createMemorySessionStore, openSession } from "@castellan/node-runner";
    const model = openaiCompatible({ baseURL: "http://127.0.0.1:9/v1", apiKey: "x", model: "m" });
    const session = await openSession({ agent: ${agentWith("model")}, store: createMemorySessionStore() });
    await session.close();`,
  anthropic: `
    import { defineAgent, defineTool } from "@castellan/harness";
    import { anthropic } from "@castellan/models/anthropic";
    import { createMemorySessionStore, openSession } from "@castellan/node-runner";
    const model = anthropic({ apiKey: "x", model: "claude-sonnet-4-6", baseURL: "http://127.0.0.1:9" });
    const session = await openSession({ agent: ${agentWith("model")}, store: createMemorySessionStore() });
    await session.close();`,
} as const;

export type StartupProbe = keyof typeof startupProbes;

/** Spawns one probe with this process's Node from `cwd` and resolves with its wall time in ms. */
export function timeProbe(probe: StartupProbe, cwd: string): Promise<number> {
  const script = startupProbes[probe];
  const args = script === "" ? ["-e", "0"] : ["--input-type=module", "-e", script];
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const elapsed = performance.now() - start;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`The ${probe} probe exited with ${code}: ${stderr}`));
    });
  });
}

export interface StartupReport {
  readonly rounds: number;
  /** Median wall time of each probe, ms. */
  readonly medians: Readonly<Record<StartupProbe, number>>;
}

/** Runs every probe `rounds` times, the order rotating each round, and takes each one's median. */
export async function measureStartup(cwd: string, rounds: number): Promise<StartupReport> {
  const probes = Object.keys(startupProbes) as StartupProbe[];
  const times = Object.fromEntries(probes.map((probe) => [probe, [] as number[]])) as Record<StartupProbe, number[]>;
  // One untimed round first: the disk cache warms the same for every probe.
  for (const probe of probes) await timeProbe(probe, cwd);
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < probes.length; index++) {
      const probe = probes[(round + index) % probes.length] as StartupProbe;
      times[probe].push(await timeProbe(probe, cwd));
    }
  }
  const medians = Object.fromEntries(probes.map((probe) => [probe, median(times[probe])])) as Record<
    StartupProbe,
    number
  >;
  return { rounds, medians };
}

/** What Castellan may add to a program's start, in ms (the target). */
export const startupTargetMs = 60;

/** The report as text, with PASS or MISS for each probe against Node's own start. */
export function formatStartup(report: StartupReport): string {
  const base = report.medians.node;
  const lines = [
    `start-up: spawn to exit, median of ${report.rounds} rounds`,
    `${"  node -e 0".padEnd(54)}${base.toFixed(1)} ms`,
  ];
  for (const probe of Object.keys(report.medians) as StartupProbe[]) {
    if (probe === "node") continue;
    const added = report.medians[probe] - base;
    const verdict = added <= startupTargetMs ? "PASS" : "MISS";
    lines.push(
      `  import + open a memory Session (${probe})`.padEnd(54) +
        `${report.medians[probe].toFixed(1)} ms, +${added.toFixed(1)} ms over node: ${verdict} (<= +${startupTargetMs} ms)`,
    );
  }
  return `${lines.join("\n")}\n`;
}
