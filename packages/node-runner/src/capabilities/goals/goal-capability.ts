import { join } from "node:path";
import {
  type Capability,
  CastellanError,
  defineCapability,
  defineTool,
  errorMessage,
  type JsonValue,
  reservedStateField,
  type StateView,
  type ToolResult,
} from "@castellan/harness";
import { reservedStateQueueOf } from "../../kernel/util/reserved-state-queue.js";
import { GoalSettlementObsoleteError } from "./errors.js";
import { createFileGoalStore, goalLimits } from "./file-goal-store.js";
import type { Goal, GoalPort } from "./types.js";

/** The reserved state key holding the latest observation of the Session's Goal. */
export const goalObservationKey = "castellan.goal.observation";

/** What a turn saw of the Goal: the Goal read fresh from the store (or null), and when. */
export interface GoalObservation {
  readonly goal: Goal | null;
  readonly observedAt: string;
}

/** The store failed while a turn read the Goal; the Run ends with this, the cause kept. */
export class GoalStoreFailedError extends CastellanError {
  constructor(options: { cause: unknown }) {
    const cause = options.cause;
    super("goal_store_failed", `Reading the Goal failed: ${errorMessage(cause)}`, options);
  }
}

/** Where a `goal()` capability keeps the store it reads, so `driveGoal` can check it drives the same one. */
const goalStoreField = Symbol.for("castellan.goal-store");

/** The store a `goal()` capability reads, or undefined for any other capability. @internal */
export function goalStoreOf(capability: Capability): GoalPort | undefined {
  return (capability as { [goalStoreField]?: GoalPort })[goalStoreField];
}

function observationIn(state: StateView): GoalObservation | null {
  const value = state[goalObservationKey] as unknown;
  return value !== null && typeof value === "object" ? (value as GoalObservation) : null;
}

function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A durable Goal for the agent: before each new turn the Goal is read fresh from `store` and the
 * observation queued (through the host-write queue) as the reserved state key
 * `castellan.goal.observation`, so that turn's context section `goal` shows it; `get_goal`
 * (read-only) reads it again; `update_goal` settles it (`complete` or `blocked`, with a summary)
 * and is shown only while the observation is an active Goal. Opening reads nothing. The default
 * store is `createFileGoalStore` at `.castellan/goals` under `process.cwd()` when this is called
 * (no I/O until a turn reads it). A store failure ends the Run with `goal_store_failed`.
 */
export function goal(options: { readonly store?: GoalPort } = {}): Capability {
  const store = options.store ?? createFileGoalStore({ directory: join(process.cwd(), ".castellan", "goals") });
  const getGoal = defineTool({
    name: "get_goal",
    description: "Read the Session's Goal as it is now (or null when there is none).",
    readOnly: true,
    async execute(_input, ctx): Promise<string | ToolResult> {
      try {
        return JSON.stringify(await store.read(ctx.sessionId, { signal: ctx.signal }));
      } catch (error) {
        return errorResult(`goal_store_failed: ${errorMessage(error)}`);
      }
    },
  });
  const updateGoal = defineTool<{ goalId: string; objective: string; status: "complete" | "blocked"; summary: string }>(
    {
      name: "update_goal",
      description:
        "Settle the current Goal: status complete when its objective is met, blocked when you cannot go on; name its exact goalId and objective, and summarize what was done.",
      inputSchema: {
        type: "object",
        properties: {
          goalId: { type: "string" },
          objective: { type: "string" },
          status: { type: "string", enum: ["complete", "blocked"] },
          summary: { type: "string", minLength: 1, maxLength: goalLimits.summary },
        },
        required: ["goalId", "objective", "status", "summary"],
        additionalProperties: false,
      },
      enabled: (ctx) => observationIn(ctx.state)?.goal?.status === "active",
      async execute(input, ctx): Promise<string | ToolResult> {
        try {
          const settled = await store.settle({ sessionId: ctx.sessionId, ...input }, { signal: ctx.signal });
          return JSON.stringify({ goal: settled });
        } catch (error) {
          if (error instanceof GoalSettlementObsoleteError) {
            return errorResult(
              `goal_settlement_obsolete: ${error.message} Current: ${JSON.stringify({ goal: error.current })}`,
            );
          }
          if (error instanceof CastellanError) return errorResult(`${error.code}: ${error.message}`);
          throw error;
        }
      },
    },
  );
  return defineCapability({
    name: "goal",
    tools: [getGoal, updateGoal],
    instructions: [
      {
        name: "goal",
        placement: "context",
        text: (ctx) => {
          const observation = observationIn(ctx.state);
          const current = observation?.goal;
          if (!current) return "";
          const lines = [
            `Goal ${current.id} (${current.status}, revision ${current.revision}): ${current.objective}`,
            current.status === "active"
              ? "Work toward it; when it is met, or you cannot go on, settle it with update_goal."
              : "It is not active: do not settle it.",
          ];
          if (current.summary) lines.push(`Summary: ${current.summary}`);
          return lines.join("\n");
        },
      },
    ],
    hooks: {
      async turnStart(info) {
        let observed: Goal | null;
        try {
          observed = await store.read(info.sessionId, { signal: info.signal });
        } catch (error) {
          if (info.signal.aborted) throw error;
          throw new GoalStoreFailedError({ cause: error });
        }
        const queue = reservedStateQueueOf(info);
        if (!queue) throw new Error("goal() runs only in a Castellan Runner.");
        const observation: GoalObservation = { goal: observed, observedAt: new Date().toISOString() };
        await queue({ [goalObservationKey]: observation as unknown as JsonValue });
      },
    },
    [reservedStateField]: { [goalObservationKey]: null },
    [goalStoreField]: store,
  } as Parameters<typeof defineCapability>[0]);
}
