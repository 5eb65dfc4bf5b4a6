import { type Agent, defineAgent, defineTool, type Usage } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  createMemorySessionStore,
  type HarnessContextBudget,
  type Session,
  type SessionStore,
  type UsageBudget,
} from "../src/index.js";
import { collect, fileRecords, openOnOwnRunner, storePlugin, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-usage-");

function counterAgent(model: Agent["model"]): Agent {
  const step = defineTool({
    name: "step",
    description: "Take a step",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: ({ n }: { n: number }, ctx) => {
      ctx.setState((state) => ({ steps: (state.steps as number) + 1 }));
      return `step ${n}`;
    },
  });
  return defineAgent("test.usage", { model, state: { steps: 0 }, tools: [step] });
}

function open(options: {
  readonly agent: Agent;
  readonly store?: SessionStore;
  readonly budget?: UsageBudget;
  readonly contextBudget?: Partial<HarnessContextBudget>;
}) {
  return openOnOwnRunner(
    {
      agent: options.agent,
      plugins: [storePlugin(options.store ?? createMemorySessionStore())],
      permissions: "full-access",
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.contextBudget ? { contextBudget: options.contextBudget } : {}),
    },
    { id: "usage" },
  );
}

/** The records of the usage Session's file-store log. */
const records = () => fileRecords(temp.path, "usage");

const used = (inputTokens: number, outputTokens: number, extra: Partial<Usage> = {}): Usage => ({
  inputTokens,
  outputTokens,
  ...extra,
});
const call = (n: number, usage: Usage): ScriptedStepSource => ({
  toolCalls: [{ name: "step", input: { n } }],
  usage,
});

describe("the usage ledger", () => {
  it("attributes every model call to its Run, turn, model and agent, with totals", async () => {
    const model = scriptedModel([
      call(1, used(100, 10, { cacheReadTokens: 40 })),
      { text: "first", usage: used(200, 20, { cacheWriteTokens: 7 }) },
      { text: "second", usage: used(300, 30) },
    ]);
    const { session, close } = await open({ agent: counterAgent(model) });
    try {
      expect(session.usage()).toEqual({
        total: expect.objectContaining({ calls: 0 }),
        byRun: {},
        byModel: {},
        entries: [],
      });
      const first = await session.run("one").result;
      const second = await session.run("two").result;
      const report = session.usage();
      expect(report.entries).toEqual([
        {
          runId: first.runId,
          turn: 1,
          agentId: "test.usage",
          model: "scripted/model",
          purpose: "turn",
          usage: used(100, 10, { cacheReadTokens: 40 }),
        },
        {
          runId: first.runId,
          turn: 2,
          agentId: "test.usage",
          model: "scripted/model",
          purpose: "turn",
          usage: used(200, 20, { cacheWriteTokens: 7 }),
        },
        {
          runId: second.runId,
          turn: 1,
          agentId: "test.usage",
          model: "scripted/model",
          purpose: "turn",
          usage: used(300, 30),
        },
      ]);
      expect(report.total).toEqual({
        calls: 3,
        inputTokens: 600,
        outputTokens: 60,
        cacheReadTokens: 40,
        cacheWriteTokens: 7,
      });
      expect(report.byRun).toEqual({
        [first.runId]: { calls: 2, inputTokens: 300, outputTokens: 30, cacheReadTokens: 40, cacheWriteTokens: 7 },
        [second.runId]: { calls: 1, inputTokens: 300, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
      });
      expect(report.byModel).toEqual({ "scripted/model": report.total });
      expect(first.usage).toMatchObject({ inputTokens: 300, outputTokens: 30 });
      expect(Object.isFrozen(report) && Object.isFrozen(report.entries) && Object.isFrozen(report.entries[0])).toBe(
        true,
      );
    } finally {
      await close();
    }
    model.assertComplete();
  });

  it("totals cost only where every counted call reported one", async () => {
    const model = scriptedModel([
      call(1, used(10, 1, { costUsd: 0.25 })),
      { text: "first", usage: used(10, 1, { costUsd: 0.5 }) },
      { text: "second", usage: used(10, 1) },
    ]);
    const { session, close } = await open({ agent: counterAgent(model) });
    try {
      const first = await session.run("one").result;
      expect(session.usage().total.costUsd).toBe(0.75);
      expect(first.usage.costUsd).toBe(0.75);
      const second = await session.run("two").result;
      const report = session.usage();
      expect(report.total).not.toHaveProperty("costUsd");
      expect(report.byModel["scripted/model"]).not.toHaveProperty("costUsd");
      expect(report.byRun[first.runId]?.costUsd).toBe(0.75);
      expect(report.byRun[second.runId]).not.toHaveProperty("costUsd");
    } finally {
      await close();
    }
  });

  it("records compaction calls with purpose compaction under the compaction model", async () => {
    const model = scriptedModel(
      [
        call(1, used(100, 10, { costUsd: 0.5 })),
        call(2, used(100, 10, { costUsd: 0.5 })),
        { text: "done", usage: used(100, 10, { costUsd: 0.5 }) },
      ],
      { contextWindow: 1_000 },
    );
    const summarizer = scriptedModel([{ text: "SUMMARY", usage: used(40, 4, { costUsd: 0.25 }) }], {
      specifier: "summarizer/small",
    });
    const big = defineTool({
      name: "step",
      description: "Take a big step",
      inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      execute: ({ n }: { n: number }) => `step ${n} ${"x".repeat(1_600)}`,
    });
    const { session, close } = await open({
      agent: defineAgent("test.usage", { model, tools: [big] }),
      contextBudget: { reserveOutputTokens: 100, model: summarizer },
    });
    try {
      const result = await session.run("go").result;
      const report = session.usage();
      expect(report.entries.map((entry) => [entry.purpose, entry.model, entry.turn])).toEqual([
        ["turn", "scripted/model", 1],
        ["turn", "scripted/model", 2],
        ["compaction", "summarizer/small", undefined],
        ["turn", "scripted/model", 3],
      ]);
      expect(report.entries[2]).toMatchObject({ runId: result.runId, agentId: "test.usage" });
      expect(report.byModel["summarizer/small"]).toEqual({
        calls: 1,
        inputTokens: 40,
        outputTokens: 4,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0.25,
      });
      expect(report.byRun[result.runId]).toMatchObject({ calls: 4, inputTokens: 340, outputTokens: 34, costUsd: 1.75 });
      expect(report.total.costUsd).toBe(1.75);
      // What the Run reports it spent is what the ledger holds for it, summaries included.
      expect(result.usage).toEqual({
        inputTokens: 340,
        outputTokens: 34,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 1.75,
      });
    } finally {
      await close();
    }
    model.assertComplete();
    summarizer.assertComplete();
  });

  it("survives reopening a file-store Session", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const model = scriptedModel([call(1, used(100, 10, { costUsd: 0.5 })), { text: "done", usage: used(50, 5) }]);
    const first = await open({ agent: counterAgent(model), store });
    let before: ReturnType<Session["usage"]>;
    try {
      await first.session.run("go").result;
      before = first.session.usage();
    } finally {
      await first.close();
    }
    const second = await open({ agent: counterAgent(scriptedModel([])), store });
    try {
      expect(second.session.usage()).toEqual(before);
      expect(before.entries).toHaveLength(2);
      expect(before.total).toMatchObject({ calls: 2, inputTokens: 150, outputTokens: 15 });
    } finally {
      await second.close();
    }
  });
});

describe("a usage budget", () => {
  it("stops a Run before the next model call, after the batch settled, and leaves the Session usable", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const model = scriptedModel([
      call(1, used(100, 10)),
      call(2, used(100, 10)),
      {
        toolCalls: [
          { name: "step", input: { n: 3 } },
          { name: "step", input: { n: 4 } },
        ],
        usage: used(100, 10),
      },
      { text: "next Run", usage: used(100, 10) },
    ]);
    const { session, close } = await open({ agent: counterAgent(model), store, budget: { maxTotalTokens: 250 } });
    try {
      const run = session.run("go");
      const events = await collect(run);
      await expect(run.result).rejects.toMatchObject({
        code: "budget_exceeded",
        message: expect.stringContaining("330 of its 250 total-token"),
      });
      expect(model.requests).toHaveLength(3);
      const kinds = events.map((event) => event.kind);
      expect(kinds.slice(-4)).toEqual(["tool-end", "state-changed", "turn-end", "run-end"]);
      expect(events.at(-1)).toMatchObject({ status: "failed", error: { code: "budget_exceeded" } });

      const saved = await records();
      expect(saved.filter((record) => record.kind === "tool-end")).toHaveLength(4);
      expect(saved.at(-2)).toMatchObject({ kind: "tool-batch-end", status: "committed", changes: { steps: 4 } });
      expect(saved.at(-1)).toMatchObject({ kind: "run-end", status: "failed", error: { code: "budget_exceeded" } });
      expect(session.inspect().state).toEqual({ steps: 4 });
      expect(session.interruptedRun()).toBeUndefined();
      expect(session.usage().byRun[run.id]).toMatchObject({ calls: 3, inputTokens: 300, outputTokens: 30 });

      // The budget is per Run: the next Run starts from zero.
      const next = await session.run("again").result;
      expect(next.text).toBe("next Run");
      expect(model.requests[3]?.messages.map((message) => message.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "tool",
        "user",
      ]);
    } finally {
      await close();
    }
    model.assertComplete();
  });

  it.each<[string, UsageBudget, string]>([
    ["input tokens", { maxInputTokens: 200 }, "200 of its 200 input-token"],
    ["output tokens", { maxOutputTokens: 15 }, "20 of its 15 output-token"],
    ["total tokens", { maxTotalTokens: 220 }, "220 of its 220 total-token"],
    ["cost", { maxCostUsd: 1 }, "1 of its 1 USD"],
  ])("stops on %s", async (_name, limit, message) => {
    const model = scriptedModel([
      call(1, used(100, 10, { costUsd: 0.5 })),
      call(2, used(100, 10, { costUsd: 0.5 })),
      { text: "never", usage: used(100, 10) },
    ]);
    const { session, close } = await open({ agent: counterAgent(model), budget: limit });
    try {
      await expect(session.run("go").result).rejects.toMatchObject({
        code: "budget_exceeded",
        message: expect.stringContaining(message),
      });
      expect(model.requests).toHaveLength(2);
      expect(model.remaining).toBe(1);
      expect(session.inspect().state).toEqual({ steps: 2 });
    } finally {
      await close();
    }
  });

  it("takes a Run's own budget instead of the Runner's", async () => {
    const model = scriptedModel([
      call(1, used(100, 10)),
      call(2, used(100, 10)),
      { text: "done", usage: used(100, 10) },
      call(3, used(100, 10)),
      { text: "never", usage: used(100, 10) },
    ]);
    const { session, close } = await open({ agent: counterAgent(model), budget: { maxTotalTokens: 50 } });
    try {
      // A larger Run budget replaces the Runner's.
      expect((await session.run("go", { budget: { maxTotalTokens: 10_000 } }).result).text).toBe("done");
      // A smaller one too; the Runner's does not apply alongside it.
      await expect(session.run("go", { budget: { maxOutputTokens: 10 } }).result).rejects.toMatchObject({
        code: "budget_exceeded",
        message: expect.stringContaining("output-token"),
      });
      expect(model.requests).toHaveLength(4);
    } finally {
      await close();
    }
  });

  it("counts a compaction's usage toward the Run's budget", async () => {
    const model = scriptedModel([call(1, used(10, 1)), call(2, used(10, 1)), { text: "never", usage: used(10, 1) }], {
      contextWindow: 1_000,
    });
    const summarizer = scriptedModel([{ text: "SUMMARY", usage: used(10, 500) }], { specifier: "summarizer/small" });
    const big = defineTool({
      name: "step",
      description: "Take a big step",
      inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      execute: ({ n }: { n: number }) => `step ${n} ${"x".repeat(1_600)}`,
    });
    const { session, close } = await open({
      agent: defineAgent("test.usage", { model, tools: [big] }),
      budget: { maxOutputTokens: 100 },
      contextBudget: { reserveOutputTokens: 100, model: summarizer },
    });
    try {
      const run = session.run("go");
      await expect(run.result).rejects.toMatchObject({
        code: "budget_exceeded",
        message: expect.stringContaining("502 of its 100 output-token"),
      });
      expect(model.requests).toHaveLength(2);
      expect(summarizer.requests).toHaveLength(1);
      expect(session.usage().byRun[run.id]).toMatchObject({ calls: 3, outputTokens: 502 });
    } finally {
      await close();
    }
  });
});
