// goal(): the Goal observed before each turn (a host state write of the reserved key, before
// the turn's request), its context section, get_goal, update_goal shown only for an active Goal
// and refused when obsolete, no reads at open, and a store failure ending the Run.
import { join } from "node:path";
import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  createFileGoalStore,
  createNodeRunner,
  type Goal,
  type GoalPort,
  type GoalStore,
  goal,
  goalObservationKey,
} from "../src/index.js";
import { drain, tempDirPerTest, textOf } from "./support/index.ts";

const temp = tempDirPerTest("castellan-goal-cap-");
const stores: GoalStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function setup(steps: readonly ScriptedStepSource[], port?: GoalPort) {
  const store = createFileGoalStore({ directory: join(temp.path, "goals") });
  stores.push(store);
  const reads: string[] = [];
  const spied: GoalPort = port ?? {
    read: (sessionId, options) => {
      reads.push(sessionId);
      return store.read(sessionId, options);
    },
    settle: (settlement, options) => store.settle(settlement, options),
  };
  const model = scriptedModel([...steps, { text: "done" }]);
  const runner = await createNodeRunner({
    agent: defineAgent("test.goal", { model, capabilities: [goal({ store: spied })] }),
    permissions: "full-access",
  });
  return { store, reads, model, runner };
}

describe("goal()", () => {
  it("observes the Goal before each turn, shows it in context, and settles it with update_goal (shown only while active)", async () => {
    let current: Goal | undefined;
    const s = await setup([
      () => ({
        toolCalls: [
          {
            name: "update_goal",
            input: {
              goalId: current?.id ?? "",
              objective: current?.objective ?? "",
              status: "complete",
              summary: "All green.",
            },
          },
        ],
      }),
    ]);
    try {
      const session = await s.runner.createSession({ id: "g1" });
      expect(s.reads).toEqual([]);
      current = (await s.store.control({ sessionId: "g1", action: "open", objective: "Make the tests pass" })) as Goal;
      const { events } = await drain(session.run("work"));
      const kinds = events.map((event) => event.kind);
      const changed = events.findIndex(
        (event) => event.kind === "state-changed" && event.source === "host" && goalObservationKey in event.changes,
      );
      expect(changed).toBeGreaterThan(kinds.indexOf("turn-start"));
      expect(changed).toBeLessThan(kinds.indexOf("assistant-message"));
      expect(s.model.requests[0]?.context).toContain(`Goal ${current.id} (active, revision 1): Make the tests pass`);
      expect(s.model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["get_goal", "update_goal"]);
      const end = events.find((event): event is Extract<RunEvent, { kind: "tool-end" }> => event.kind === "tool-end");
      expect(JSON.parse(textOf(end?.result))).toMatchObject({ goal: { status: "complete", summary: "All green." } });
      // The next turn observes the settled Goal: update_goal is gone.
      expect(s.model.requests[1]?.tools.map((tool) => tool.name)).toEqual(["get_goal"]);
      expect(s.model.requests[1]?.context).toContain("(complete, revision 2)");
      expect(s.reads).toEqual(["g1", "g1"]);
      await session.close();
    } finally {
      await s.runner.close();
    }
  });

  it("refuses an obsolete settlement with the current Goal, and hides update_goal without an active Goal", async () => {
    const inner = createFileGoalStore({ directory: join(temp.path, "obsolete") });
    stores.push(inner);
    let reads = 0;
    // The host pauses the Goal right after the first turn observed it active.
    const pausing: GoalPort = {
      read: async (sessionId, options) => {
        const observed = await inner.read(sessionId, options);
        if (reads++ === 0) await inner.control({ sessionId, action: "pause" });
        return observed;
      },
      settle: (settlement, options) => inner.settle(settlement, options),
    };
    const current = (await inner.control({ sessionId: "g2", action: "open", objective: "Refactor" })) as Goal;
    const s = await setup(
      [
        {
          toolCalls: [
            {
              name: "update_goal",
              input: { goalId: current.id, objective: current.objective, status: "complete", summary: "Done." },
            },
          ],
        },
      ],
      pausing,
    );
    try {
      const session = await s.runner.createSession({ id: "g2" });
      const { events } = await drain(session.run("work"));
      const end = events.find((event): event is Extract<RunEvent, { kind: "tool-end" }> => event.kind === "tool-end");
      expect(end?.result.isError).toBe(true);
      expect(textOf(end?.result)).toMatch(/^goal_settlement_obsolete: .*Current: \{"goal":\{.*"status":"paused"/);
      expect(s.model.requests[1]?.tools.map((tool) => tool.name)).toEqual(["get_goal"]);
      await session.close();
    } finally {
      await s.runner.close();
    }
  });

  it("reads the Goal only for new turns: resuming an aborted Run settles its batch without calling turnStart again", async () => {
    let started!: () => void;
    const waiting = new Promise<void>((resolve) => {
      started = resolve;
    });
    const store = createFileGoalStore({ directory: join(temp.path, "resume") });
    stores.push(store);
    let reads = 0;
    const counting: GoalPort = {
      read: (sessionId, options) => {
        reads++;
        return store.read(sessionId, options);
      },
      settle: (settlement, options) => store.settle(settlement, options),
    };
    const hold = defineTool({
      name: "hold",
      description: "Waits until aborted",
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => {
          started();
          ctx.signal.addEventListener("abort", () => resolve("stopped"));
        }),
    });
    const model = scriptedModel([{ toolCalls: [{ name: "hold", input: {} }] }, { text: "after the resume" }]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.goal-resume", { model, tools: [hold], capabilities: [goal({ store: counting })] }),
      permissions: "full-access",
    });
    try {
      const session = await runner.createSession({ id: "g4" });
      const controller = new AbortController();
      const run = session.run("work", { signal: controller.signal });
      await waiting;
      controller.abort();
      await run.result.catch(() => undefined);
      expect(reads).toBe(1);
      await session.resume().result;
      // The resumed batch replayed without a turnStart; only the new turn read the Goal.
      expect(reads).toBe(2);
      expect(model.requests).toHaveLength(2);
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it("ends the Run with goal_store_failed when the store cannot be read", async () => {
    const failing: GoalPort = {
      read: async () => {
        throw new Error("disk unplugged");
      },
      settle: async () => {
        throw new Error("unused");
      },
    };
    const s = await setup([], failing);
    try {
      const session = await s.runner.createSession();
      await expect(session.run("work").result).rejects.toMatchObject({
        code: "goal_store_failed",
        cause: expect.objectContaining({ message: "disk unplugged" }),
      });
      expect(s.model.requests).toHaveLength(0);
      await session.close();
    } finally {
      await s.runner.close();
    }
  });
});
