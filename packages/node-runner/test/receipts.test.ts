import { type Agent, defineAgent, defineTool, type ToolReceipt } from "@castellan/harness";
import { type ScriptedModel, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, openSession } from "../src/index.js";
import { isDeepFrozen, tempDirPerTest, throwsTypeError, toolNames } from "./support/index.ts";

const temp = tempDirPerTest("castellan-receipts-");

/** A lookup tool: answers with two text blocks, and fails for the query "missing". */
const lookup = defineTool({
  name: "lookup",
  description: "Looks a term up",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  execute: ({ q }: { q: string }) => {
    if (q === "missing") throw new Error(`no entry for ${q}`);
    return [
      { type: "text", text: `entry for ${q}` },
      { type: "text", text: "second block" },
    ] as const;
  },
});

describe("ctx.toolCalls", () => {
  it("lists settled receipts with their input, complete result, ok, runId and turn, oldest first", async () => {
    const seen: { lookups: readonly ToolReceipt[]; own: readonly ToolReceipt[]; never: readonly ToolReceipt[] }[] = [];
    const report = defineTool({
      name: "report",
      description: "Reports what lookup did",
      execute: (_input, ctx) => {
        seen.push({ lookups: ctx.toolCalls("lookup"), own: ctx.toolCalls("report"), never: ctx.toolCalls("never") });
        return "reported";
      },
    });
    const sectionCounts: number[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: "lookup", input: { q: "alpha" }, id: "a" }] },
      {
        toolCalls: [
          { name: "lookup", input: { q: "missing" }, id: "b" },
          { name: "lookup", input: { q: 5 }, id: "c" },
        ],
      },
      { toolCalls: [{ name: "report", input: {}, id: "d" }] },
      { text: "done" },
    ]);
    const agent = defineAgent("test.receipts", {
      model,
      tools: [lookup, report],
      instructions: {
        lookups: (ctx) => {
          sectionCounts.push(ctx.toolCalls("lookup").length);
          return `lookups so far: ${ctx.toolCalls("lookup").length}`;
        },
      },
    });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      const run = session.run("go");
      await run.result;
      const runId = run.id;
      expect(seen).toHaveLength(1);
      expect(seen[0]?.own).toEqual([]);
      expect(seen[0]?.never).toEqual([]);
      expect(seen[0]?.lookups).toEqual([
        {
          toolCallId: "a",
          name: "lookup",
          input: { q: "alpha" },
          result: {
            content: [
              { type: "text", text: "entry for alpha" },
              { type: "text", text: "second block" },
            ],
            isError: false,
          },
          ok: true,
          runId,
          turn: 1,
        },
        {
          toolCallId: "b",
          name: "lookup",
          input: { q: "missing" },
          result: { content: [{ type: "text", text: 'Tool "lookup" failed: no entry for missing' }], isError: true },
          ok: false,
          runId,
          turn: 2,
        },
        {
          toolCallId: "c",
          name: "lookup",
          input: { q: 5 },
          result: { content: [{ type: "text", text: expect.stringContaining("Invalid input") }], isError: true },
          ok: false,
          runId,
          turn: 2,
        },
      ]);
      // The opening projection and turns 1 to 4.
      expect(sectionCounts).toEqual([0, 0, 1, 3, 3]);
      expect(model.requests.map((request) => request.system)).toEqual([
        "lookups so far: 0",
        "lookups so far: 1",
        "lookups so far: 3",
        "lookups so far: 3",
      ]);
    } finally {
      await session.close();
    }
  });

  it("returns frozen snapshots: mutation attempts throw in strict mode and change nothing", async () => {
    const outcomes: Record<string, unknown> = {};
    const inspect = defineTool({
      name: "inspect_receipts",
      description: "Tries to change receipts",
      execute: (_input, ctx) => {
        const receipts = ctx.toolCalls("lookup") as ToolReceipt[];
        const receipt = receipts[0] as unknown as {
          ok: boolean;
          input: { q: string };
          result: { content: { text: string }[] };
        };
        outcomes.deepFrozen = isDeepFrozen(receipts);
        outcomes.push = throwsTypeError(() => receipts.push(receipts[0] as ToolReceipt));
        outcomes.splice = throwsTypeError(() => receipts.splice(0, 1));
        outcomes.ok = throwsTypeError(() => {
          receipt.ok = false;
        });
        outcomes.input = throwsTypeError(() => {
          receipt.input.q = "changed";
        });
        outcomes.text = throwsTypeError(() => {
          (receipt.result.content[0] as { text: string }).text = "changed";
        });
        outcomes.again = ctx.toolCalls("lookup");
        return "tried";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "lookup", input: { q: "alpha" } }] },
      { toolCalls: [{ name: "inspect_receipts", input: {} }] },
      { text: "done" },
    ]);
    const agent = defineAgent("test.frozen-receipts", { model, tools: [lookup, inspect] });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      await session.run("go").result;
      expect(outcomes).toMatchObject({ deepFrozen: true, push: true, splice: true, ok: true, input: true, text: true });
      expect(outcomes.again).toEqual([
        expect.objectContaining({
          input: { q: "alpha" },
          ok: true,
          result: expect.objectContaining({
            content: expect.arrayContaining([{ type: "text", text: "entry for alpha" }]),
          }),
        }),
      ]);
    } finally {
      await session.close();
    }
  });

  it("keeps receipts across Runs and across reopening in a new Session object", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const seen: (readonly ToolReceipt[])[] = [];
    const report = defineTool({
      name: "report",
      description: "Reports what lookup did",
      execute: (_input, ctx) => {
        seen.push(ctx.toolCalls("lookup"));
        return "reported";
      },
    });
    const makeAgent = (model: ScriptedModel): Agent =>
      defineAgent("test.receipts-kept", {
        model,
        tools: [lookup, report],
        instructions: {
          lookups: (ctx) =>
            `lookups: ${ctx
              .toolCalls("lookup")
              .map((call) => (call.input as { q: string }).q)
              .join(",")}`,
        },
      });
    const firstModel = scriptedModel([
      { toolCalls: [{ name: "lookup", input: { q: "alpha" } }] },
      { text: "first" },
      { toolCalls: [{ name: "lookup", input: { q: "missing" } }] },
      { toolCalls: [{ name: "report", input: {} }] },
      { text: "second" },
    ]);
    const first = await openSession({ agent: makeAgent(firstModel), id: "kept", store, permissions: "full-access" });
    let runIds: string[];
    try {
      const runA = first.run("a");
      await runA.result;
      const runB = first.run("b");
      await runB.result;
      runIds = [runA.id, runB.id];
      expect(seen[0]?.map((call) => [call.input, call.ok, call.runId, call.turn])).toEqual([
        [{ q: "alpha" }, true, runA.id, 1],
        [{ q: "missing" }, false, runB.id, 1],
      ]);
      expect(firstModel.requests[2]?.system).toBe("lookups: alpha");
    } finally {
      await first.close();
    }

    const secondModel = scriptedModel([{ toolCalls: [{ name: "report", input: {} }] }, { text: "third" }]);
    const second = await openSession({ agent: makeAgent(secondModel), id: "kept", store, permissions: "full-access" });
    try {
      expect(second.inspect().initial.sections.map((section) => section.text)).toEqual(["lookups: alpha,missing"]);
      await second.run("c").result;
      expect(secondModel.requests[0]?.system).toBe("lookups: alpha,missing");
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[1]?.map((call) => call.runId)).toEqual(runIds);
      expect(isDeepFrozen(seen[1])).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe("the spec's create_report example", () => {
  it("hides the tool after a successful call, and shows the retry section only after a failed one", async () => {
    let attempts = 0;
    const createWeeklyReport = async () => {
      attempts++;
      if (attempts === 1) throw new Error("the report service timed out");
      return "Report #7 created.";
    };
    const createReport = defineTool({
      name: "create_report",
      description: "Create the weekly report.",
      enabled: (ctx) => !ctx.toolCalls("create_report").some((call) => call.ok),
      async execute() {
        return await createWeeklyReport();
      },
    });
    const call = { toolCalls: [{ name: "create_report", input: {} }] };
    const model = scriptedModel([call, call, { text: "The report was created." }, { text: "Nothing else to do." }]);
    const agent = defineAgent("app.report-once", {
      model,
      instructions: {
        task: "Create the report and summarize the result.",
        retry: (ctx) =>
          ctx.toolCalls("create_report").at(-1)?.ok === false
            ? "The last report attempt failed. Inspect its result before trying again."
            : "",
      },
      tools: [createReport],
    });
    const task = "Create the report and summarize the result.";
    const retry = "The last report attempt failed. Inspect its result before trying again.";
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      const result = await session.run("Create this week's report.").result;
      expect(result.text).toBe("The report was created.");
      expect(attempts).toBe(2);
      expect(model.requests.map((request) => request.system)).toEqual([task, `${task}\n\n${retry}`, task]);
      expect(model.requests.map(toolNames)).toEqual([["create_report"], ["create_report"], []]);
      // The retry section is omitted while empty: not even as an empty section.
      const turns = session.inspect().turns;
      expect(turns.map((turn) => turn.sections.map((section) => section.name))).toEqual([
        ["task"],
        ["task", "retry"],
        ["task"],
      ]);
      const noChange = {
        toolsShown: [],
        toolsHidden: [],
        sectionsAdded: [],
        sectionsRemoved: [],
        sectionsChanged: [],
        skillsShown: [],
        skillsHidden: [],
        skillsActivated: [],
      };
      expect(turns.map((turn) => turn.changes)).toEqual([
        { ...noChange, sectionsAdded: [] },
        { ...noChange, sectionsAdded: ["agent:retry"] },
        { ...noChange, toolsHidden: ["create_report"], sectionsRemoved: ["agent:retry"] },
      ]);

      // A new Run reads the same settled receipts: the tool stays hidden.
      await session.run("Anything else?").result;
      expect(model.requests[3]?.system).toBe(task);
      expect(toolNames(model.requests[3])).toEqual([]);
      expect(attempts).toBe(2);
    } finally {
      await session.close();
    }
  });
});
