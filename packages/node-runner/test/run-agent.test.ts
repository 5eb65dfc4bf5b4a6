// ctx.runAgent from an application's own tool, through a real Runner: two children in one
// call (their Session ids, events and the receipt's childUsage), bad options and tasks as
// coded tool errors, `delegates` checked at open and at declaration, and depth from a tool that
// is not childAgent's.
import {
  type ChildAgentOutcome,
  DeclarationError,
  defineAgent,
  defineTool,
  type JsonObject,
  type RunEvent,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, createNodeRunner } from "../src/index.js";
import { drain, plugin, storeRecords, textOf } from "./support/index.ts";

const look = defineTool({ name: "look", description: "Looks", readOnly: true, execute: () => "looked" });

function reviewer(id: string, answer: string, inputTokens: number) {
  return defineAgent(id, {
    model: scriptedModel([{ text: answer, usage: { inputTokens, outputTokens: 1 } }]),
    tools: [look],
  });
}

/** An application's tool that asks two reviewers and returns both answers. */
function panelTool(first: ReturnType<typeof defineAgent>, second: ReturnType<typeof defineAgent>) {
  return defineTool<{ question: string }>({
    name: "ask_panel",
    description: "Asks two reviewers",
    inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
    delegates: [
      { agent: first, toolGrants: ["look"] },
      { agent: second, toolGrants: [] },
    ],
    async execute(input, ctx) {
      const outcomes: ChildAgentOutcome[] = [];
      outcomes.push(await ctx.runAgent(first, input.question, { toolGrants: ["look"] }));
      outcomes.push(await ctx.runAgent(second, input.question, { toolGrants: [], maxResultBytes: 4 }));
      return outcomes.map((outcome) => `${outcome.childSessionId}: ${outcome.status} ${outcome.text}`).join("\n");
    },
  });
}

async function runParent(tool: ReturnType<typeof defineTool>, input: JsonObject) {
  const store = createMemorySessionStore();
  const model = scriptedModel([
    { toolCalls: [{ id: "c1", name: tool.name, input }], usage: { inputTokens: 10, outputTokens: 1 } },
    { text: "parent done" },
  ]);
  const runner = await createNodeRunner({
    agent: defineAgent("test.panel-parent", { model, tools: [tool] }),
    permissions: "full-access",
    plugins: [plugin("test.store", (host) => host.registerSessionStore(store))],
  });
  const session = await runner.createSession({ id: "p" });
  const { events } = await drain(session.run("ask"));
  const usage = session.usage().entries;
  await session.close();
  await runner.close();
  const end = events.find(
    (event): event is Extract<RunEvent, { kind: "tool-end" }> => event.kind === "tool-end" && event.toolCallId === "c1",
  );
  return { events, end, usage, store };
}

describe("ctx.runAgent", () => {
  it("runs each child in its own Session, streams its events, and keeps every child's usage on the call's receipt", async () => {
    const { events, end, usage, store } = await runParent(
      panelTool(reviewer("test.first", "first answer", 100), reviewer("test.second", "second answer", 200)),
      { question: "Is it right?" },
    );
    expect(textOf(end?.result)).toBe("p/child/c1: completed first answer\np/child/c1-2: completed seco");
    const childSessions = new Set(
      events.flatMap((event) => (event.kind === "child-event" ? [event.childSessionId] : [])),
    );
    expect([...childSessions]).toEqual(["p/child/c1", "p/child/c1-2"]);
    expect(usage.map((entry) => [entry.agentId, entry.usage.inputTokens, entry.toolCallId ?? null])).toEqual([
      ["test.panel-parent", 10, null],
      ["test.first", 100, "c1"],
      ["test.second", 200, "c1"],
      ["test.panel-parent", 0, null],
    ]);
    const receipt = (await storeRecords(store, "p")).find(
      (record) => record.kind === "tool-end" && record.toolCallId === "c1",
    );
    expect(receipt).toMatchObject({
      childUsage: [
        { agentId: "test.first", usage: { inputTokens: 100 } },
        { agentId: "test.second", usage: { inputTokens: 200 } },
      ],
    });
  });

  it("refuses bad options and a bad task with coded errors the model reads, and runs nothing", async () => {
    const helper = reviewer("test.helper", "never", 1);
    const tool = defineTool<{ task: string; bad: string }>({
      name: "misuse",
      description: "Misuses runAgent",
      delegates: [{ agent: helper, toolGrants: [] }],
      execute: async (input, ctx) =>
        (input.bad === "grants"
          ? ctx.runAgent(helper, input.task, { toolGrants: "look" as never })
          : input.bad === "turns"
            ? ctx.runAgent(helper, input.task, { toolGrants: [], maxTurns: 0 })
            : ctx.runAgent(helper, input.task, { toolGrants: [] })
        ).then((outcome) => outcome.status),
    });
    const grants = await runParent(tool, { task: "t", bad: "grants" });
    expect(textOf(grants.end?.result)).toMatch(/child_options_invalid: .*toolGrants is required/);
    const turns = await runParent(tool, { task: "t", bad: "turns" });
    expect(textOf(turns.end?.result)).toMatch(/child_options_invalid: .*maxTurns must be an integer from 1/);
    const task = await runParent(tool, { task: "", bad: "none" });
    expect(textOf(task.end?.result)).toMatch(/task_invalid: task must be 1 to 32,768 bytes/);
    for (const run of [grants, turns, task])
      expect(run.events.some((event) => event.kind === "child-event")).toBe(false);
  });

  it("fails the open with child_grant_unknown for a delegates grant the child cannot answer", async () => {
    const helper = reviewer("test.helper", "never", 1);
    const tool = defineTool({
      name: "delegating",
      description: "Delegates",
      delegates: [{ agent: helper, toolGrants: ["look", "missing_tool"] }],
      execute: () => "unused",
    });
    const runner = await createNodeRunner({
      agent: defineAgent("test.bad-grants", { model: scriptedModel([]), tools: [tool] }),
      permissions: "full-access",
    });
    try {
      await expect(runner.createSession()).rejects.toMatchObject({
        code: "child_grant_unknown",
        message: expect.stringContaining('"missing_tool"'),
      });
    } finally {
      await runner.close();
    }
  });

  it("refuses a malformed delegates list at declaration", () => {
    expect(() =>
      defineTool({
        name: "x",
        description: "x",
        delegates: [{ agent: {} as never, toolGrants: [] }],
        execute: () => "",
      }),
    ).toThrow(DeclarationError);
    expect(() =>
      defineTool({
        name: "x",
        description: "x",
        delegates: [{ agent: reviewer("test.r", "", 1), toolGrants: [""] }],
        execute: () => "",
      }),
    ).toThrow(/delegates must be a list/);
  });

  it("hides an application's delegating tool from a child with no level left, and says why when it is called", async () => {
    const leaf = reviewer("test.leaf", "leaf answer", 1);
    const inner = defineTool<{ q: string }>({
      name: "ask_leaf",
      description: "Asks the leaf",
      delegates: [{ agent: leaf, toolGrants: [] }],
      execute: async (input, ctx) => (await ctx.runAgent(leaf, input.q, { toolGrants: [] })).text,
    });
    const middle = defineAgent("test.middle", {
      model: scriptedModel([{ toolCalls: [{ name: "ask_leaf", input: { q: "deeper" } }] }, { text: "middle done" }]),
      tools: [inner],
    });
    const outer = defineTool<{ q: string }>({
      name: "ask_middle",
      description: "Asks the middle",
      delegates: [{ agent: middle, toolGrants: ["ask_leaf"] }],
      execute: async (input, ctx) => JSON.stringify(await ctx.runAgent(middle, input.q, { toolGrants: ["ask_leaf"] })),
    });
    const { events } = await runParent(outer, { q: "go" });
    const childEnds = events.flatMap((event) =>
      event.kind === "child-event" && event.event.kind === "tool-end" ? [event.event] : [],
    );
    expect(childEnds[0]?.kind === "tool-end" && textOf(childEnds[0].result)).toMatch(/^child_depth_exceeded: /);
  });
});
