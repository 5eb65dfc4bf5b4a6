// One long Run through the real runner, timed from its events.
import { type Agent, defineAgent } from "@castellan/harness";
import { createNodeRunner, type NodeRunnerPlugin, type SessionStore } from "@castellan/node-runner";
import { createInstantModel, tickTool } from "./instant-model.ts";
import { durationsFromStarts, type TurnTimings } from "./stats.ts";

export const benchAgentId = "bench.turn-loop";

/** The bench agent: the instant model answering `turns` turns, and the `tick` tool. */
export function benchAgent(turns: number): Agent {
  return defineAgent(benchAgentId, {
    model: createInstantModel(turns),
    instructions: "Tick until done.",
    tools: [tickTool],
  });
}

export function storePlugin(store: SessionStore): NodeRunnerPlugin {
  return { name: "bench.store", apply: (host) => host.registerSessionStore(store) };
}

export interface CastellanRun extends TurnTimings {
  readonly text: string;
  readonly turns: number;
}

/**
 * Runs one Run of `turns` turns in a new Session `sessionId` of `store`, with the `full-access`
 * preset. A turn's time is taken where the consumer of the Run's events sees it: from its
 * `turn-start` to the next turn's `turn-start` (the last turn to `run-end`).
 */
export async function runCastellanLoop(options: {
  readonly turns: number;
  readonly store: SessionStore;
  readonly sessionId: string;
}): Promise<CastellanRun> {
  const { turns, store, sessionId } = options;
  const runner = await createNodeRunner({
    agent: benchAgent(turns),
    plugins: [storePlugin(store)],
    permissions: "full-access",
    limits: { maxTurns: Math.max(2000, turns) },
  });
  try {
    const session = await runner.createSession({ id: sessionId });
    try {
      const starts: number[] = [];
      const begin = performance.now();
      const run = session.run(`Tick ${turns} times.`);
      for await (const event of run) {
        if (event.kind === "turn-start") {
          starts.push(performance.now());
          if (event.turn !== starts.length)
            throw new Error(`turn-start ${event.turn} arrived as start ${starts.length}.`);
        } else if (event.kind === "run-end") {
          starts.push(performance.now());
        }
      }
      const end = performance.now();
      const result = await run.result;
      if (result.turns !== turns || starts.length !== turns + 1) {
        throw new Error(`The Run took ${result.turns} turns (${starts.length - 1} timed), not ${turns}.`);
      }
      return { durations: durationsFromStarts(starts), totalMs: end - begin, text: result.text, turns: result.turns };
    } finally {
      await session.close();
    }
  } finally {
    await runner.close();
  }
}
