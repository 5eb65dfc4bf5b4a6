// One long Run through the real runner, timed from its events.
import { type Agent, defineAgent, type ModelBinding } from "@castellan/harness";
import { createNodeRunner, type NodeRunnerPlugin, type SessionStore } from "@castellan/node-runner";
import { createInstantModel, readOnlyTickTool, statefulTickTool, tickState, tickTool } from "./instant-model.ts";
import { durationsFromStarts, type TurnTimings } from "./stats.ts";

export const benchAgentId = "bench.turn-loop";
export const statefulBenchAgentId = "bench.turn-loop-state";

/**
 * The bench agent: the instant model answering `turns` turns (or `model`), and the `tick`
 * tool. With `state`, the agent declares the `ticks` state key, its `tick` tool writes it with
 * ctx.setState in every tool-call turn, and an instruction section reads it each turn. With
 * `readOnly` (and no `state`), `tick` is declared read-only.
 */
export function benchAgent(
  turns: number,
  options: { readonly state?: boolean; readonly readOnly?: boolean; readonly model?: ModelBinding } = {},
): Agent {
  const model = options.model ?? createInstantModel(turns);
  if (!options.state) {
    return defineAgent(benchAgentId, {
      model,
      instructions: "Tick until done.",
      tools: [options.readOnly ? readOnlyTickTool : tickTool],
    });
  }
  return defineAgent(statefulBenchAgentId, {
    model,
    state: tickState,
    instructions: {
      task: "Tick until done.",
      progress: (ctx) => `Ticks so far: ${String(ctx.state.ticks)}.`,
    },
    tools: [statefulTickTool],
  });
}

export function storePlugin(store: SessionStore): NodeRunnerPlugin {
  return { name: "bench.store", apply: (host) => host.registerSessionStore(store) };
}

export interface CastellanRun extends TurnTimings {
  readonly text: string;
  readonly turns: number;
  /** `state-changed` events of the Run (one per tool-call turn with `state`, else none). */
  readonly stateWrites: number;
  /** Committed `ticks` after the Run (undefined without `state`). */
  readonly ticks: number | undefined;
}

/**
 * Runs one Run of `turns` turns in a new Session `sessionId` of `store`, with the `full-access`
 * preset (and, with `state`, a state write in every tool-call turn), answered by the instant
 * model or `model`. A turn's time is taken from its model call to the next one (the last turn's
 * to `run-end`), where the hand-written loops take it.
 */
export async function runCastellanLoop(options: {
  readonly turns: number;
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly state?: boolean;
  /** Declare `tick` read-only (ignored with `state`). */
  readonly readOnly?: boolean;
  /** The model answering the Run. Default: the instant model. */
  readonly model?: ModelBinding;
}): Promise<CastellanRun> {
  const { turns, store, sessionId } = options;
  const state = options.state ?? false;
  // A turn is timed from its model call to the next one, where the hand-written loops time it:
  // events of records saved ahead reach the consumer in bursts, once their sync is done.
  const calls: number[] = [];
  const inner = options.model ?? createInstantModel(turns);
  const model: ModelBinding = {
    specifier: inner.specifier,
    ...(inner.contextWindow === undefined ? {} : { contextWindow: inner.contextWindow }),
    stream: (request, callOptions) => {
      calls.push(performance.now());
      return inner.stream(request, callOptions);
    },
  };
  const runner = await createNodeRunner({
    agent: benchAgent(turns, { state, readOnly: options.readOnly, model }),
    plugins: [storePlugin(store)],
    permissions: "full-access",
    limits: { maxTurns: Math.max(2000, turns) },
  });
  try {
    const session = await runner.createSession({ id: sessionId });
    try {
      let stateWrites = 0;
      let turnStarts = 0;
      let ended = Number.NaN;
      const begin = performance.now();
      const run = session.run(`Tick ${turns} times.`);
      for await (const event of run) {
        if (event.kind === "state-changed") {
          stateWrites++;
        } else if (event.kind === "turn-start") {
          turnStarts++;
          if (event.turn !== turnStarts) throw new Error(`turn-start ${event.turn} arrived as start ${turnStarts}.`);
        } else if (event.kind === "run-end") {
          ended = performance.now();
        }
      }
      const end = performance.now();
      const starts = [...calls, ended];
      const result = await run.result;
      if (result.turns !== turns || starts.length !== turns + 1) {
        throw new Error(`The Run took ${result.turns} turns (${starts.length - 1} timed), not ${turns}.`);
      }
      const ticks = state ? (session.inspect().state.ticks as number) : undefined;
      if (state && (stateWrites !== turns - 1 || ticks !== turns - 1)) {
        throw new Error(`The Run wrote state ${stateWrites} times (ticks ${ticks}), not once per tool-call turn.`);
      }
      return {
        durations: durationsFromStarts(starts),
        totalMs: end - begin,
        text: result.text,
        turns: result.turns,
        stateWrites,
        ticks,
      };
    } finally {
      await session.close();
    }
  } finally {
    await runner.close();
  }
}
