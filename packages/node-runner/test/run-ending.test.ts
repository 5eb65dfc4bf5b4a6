// A Run says how it ended: the final answer's stop reason, a truncated answer marked as such,
// a tool call cut off at the output limit settled as an error the model can read, and usage
// read from the same ledger as session.usage().
import { defineAgent, defineTool, type JsonValue, type StopReason } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, openSession, type SessionRecord } from "../src/index.js";
import { drain, storeRecords, textOf } from "./support/index.ts";

function writeTool(executed: JsonValue[]) {
  return defineTool({
    name: "write_file",
    description: "Write a file",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, text: { type: "string" } },
      required: ["path", "text"],
    },
    execute: (input: JsonValue) => {
      executed.push(input);
      return "written";
    },
  });
}

/**
 * A store holding Session "s" whose Run "r1" stopped right after its first answer was saved:
 * `message` with `stopReason`, and `usage` when given.
 */
async function storeWithStoppedRun(answer: {
  readonly message: Extract<SessionRecord, { kind: "assistant-message" }>["message"];
  readonly stopReason: StopReason;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
}) {
  const store = createMemorySessionStore();
  const log = await store.open("s");
  await log.append([
    { kind: "session-open", formatVersion: 1, sessionId: "s", agentId: "test.ending", params: {} },
    { kind: "run-start", runId: "r1", input: [{ type: "text", text: "go" }] },
    { kind: "assistant-message", runId: "r1", turn: 1, model: "scripted/model", ...answer },
  ]);
  await log.close();
  return store;
}

describe("run.result.stopReason", () => {
  const cases: readonly [StopReason, string, boolean][] = [
    ["end", "end", false],
    ["max-tokens", "max-tokens", true],
    ["refusal", "refusal", false],
    ["other", "other", false],
    ["tool-calls", "other", false],
  ];
  it.each(cases)("a final answer that ended with %s gives %s (truncated %s)", async (model, expected, truncated) => {
    const store = createMemorySessionStore();
    const agent = defineAgent("test.ending", { model: scriptedModel([{ text: "Partial ans", stopReason: model }]) });
    const session = await openSession({ agent, id: "s", store });
    let run: ReturnType<typeof session.run>;
    try {
      run = session.run("go");
      const { events } = await drain(run);
      const end = events.at(-1);
      expect(end).toMatchObject({ kind: "run-end", status: "completed", result: { stopReason: expected, truncated } });
      expect(await run.result).toMatchObject({ text: "Partial ans", stopReason: expected, truncated });
    } finally {
      await session.close();
    }
    const saved = await storeRecords(store, "s");
    expect(saved.at(-1)).toEqual({ kind: "run-end", runId: run.id, status: "completed", stopReason: expected });
  });

  it("a resumed Run whose truncated final answer was saved ends truncated, without calling the model", async () => {
    const model = scriptedModel([]);
    const store = await storeWithStoppedRun({
      message: { role: "assistant", content: [{ type: "text", text: "cut" }], toolCalls: [] },
      stopReason: "max-tokens",
    });
    const session = await openSession({ agent: defineAgent("test.ending", { model }), id: "s", store });
    try {
      expect(await session.resume().result).toMatchObject({ text: "cut", stopReason: "max-tokens", truncated: true });
    } finally {
      await session.close();
    }
    expect(model.requests).toHaveLength(0);
  });
});

describe("a tool call whose arguments are not JSON", () => {
  it("cut off at the output limit, is settled with an error and a receipt, and the Run goes on", async () => {
    const executed: JsonValue[] = [];
    const store = createMemorySessionStore();
    const model = scriptedModel([
      {
        text: "Writing the report.",
        toolCalls: [{ id: "cut", name: "write_file", malformedInput: '{"path":"report.md","text":"Sales rose by' }],
        stopReason: "max-tokens",
      },
      { toolCalls: [{ id: "again", name: "write_file", input: { path: "report.md", text: "Sales rose." } }] },
      { text: "Done." },
    ]);
    const agent = defineAgent("test.ending", { model, tools: [writeTool(executed)] });
    const session = await openSession({ agent, id: "s", store, permissions: "full-access" });
    try {
      const run = session.run("Write the report.");
      const { events, error } = await drain(run);
      expect(error).toBeUndefined();
      expect((await run.result).text).toBe("Done.");
      // The cut call never ran and never asked permission; the second one did.
      expect(executed).toEqual([{ path: "report.md", text: "Sales rose." }]);
      const permissions = events.filter((event) => event.kind === "tool-permission");
      expect(permissions.map((event) => (event.kind === "tool-permission" ? event.toolCallId : ""))).toEqual(["again"]);
    } finally {
      await session.close();
    }
    // The model read why, in the next request.
    const told = model.requests[1]?.messages.at(-1);
    expect(told).toMatchObject({ role: "tool", toolCallId: "cut", isError: true });
    expect(textOf(told)).toContain("cut off at the output limit");
    expect(textOf(told)).toContain("send it again with smaller input");
    // Its receipt keeps the text the model wrote.
    const saved = await storeRecords(store, "s");
    const end = saved.find(
      (record): record is Extract<SessionRecord, { kind: "tool-end" }> =>
        record.kind === "tool-end" && record.toolCallId === "cut",
    );
    expect(end).toMatchObject({ input: '{"path":"report.md","text":"Sales rose by', result: { isError: true } });
    expect(saved.some((record) => record.kind === "tool-start" && record.toolCall.id === "cut")).toBe(false);
  });

  it("that is simply invalid, says so", async () => {
    const executed: JsonValue[] = [];
    const model = scriptedModel([
      { toolCalls: [{ id: "bad", name: "write_file", malformedInput: "{path: report.md}" }] },
      { text: "ok" },
    ]);
    const session = await openSession({
      agent: defineAgent("test.ending", { model, tools: [writeTool(executed)] }),
      permissions: "full-access",
    });
    try {
      await session.run("go").result;
    } finally {
      await session.close();
    }
    expect(executed).toEqual([]);
    expect(textOf(model.requests[1]?.messages.at(-1))).toContain("were not valid JSON");
  });
});

describe("run.result.usage", () => {
  it("is the Run's entry of session.usage(), cache tokens included", async () => {
    const executed: JsonValue[] = [];
    const model = scriptedModel([
      {
        toolCalls: [{ name: "write_file", input: { path: "a", text: "b" } }],
        usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 60, cacheWriteTokens: 5, costUsd: 0.5 },
      },
      { text: "done", usage: { inputTokens: 200, outputTokens: 20, cacheReadTokens: 150, costUsd: 0.25 } },
      { text: "again", usage: { inputTokens: 7, outputTokens: 1, costUsd: 0.01 } },
    ]);
    const session = await openSession({
      agent: defineAgent("test.ending", { model, tools: [writeTool(executed)] }),
      permissions: "full-access",
    });
    try {
      const first = await session.run("go").result;
      const second = await session.run("more").result;
      const report = session.usage();
      for (const result of [first, second]) {
        const { calls: _calls, ...totals } = report.byRun[result.runId] ?? { calls: 0 };
        expect(result.usage).toEqual(totals);
      }
      expect(first.usage).toEqual({
        inputTokens: 300,
        outputTokens: 30,
        cacheReadTokens: 210,
        cacheWriteTokens: 5,
        costUsd: 0.75,
      });
    } finally {
      await session.close();
    }
  });

  it("of a resumed Run counts what it spent before the interruption, and so does its budget", async () => {
    const store = await storeWithStoppedRun({
      message: {
        role: "assistant",
        content: [],
        toolCalls: [{ id: "c1", name: "write_file", input: { path: "a", text: "b" } }],
      },
      stopReason: "tool-calls",
      usage: { inputTokens: 900, outputTokens: 50 },
    });
    const executed: JsonValue[] = [];
    const overBudget = scriptedModel([]);
    const agent = (model: ReturnType<typeof scriptedModel>) =>
      defineAgent("test.ending", { model, tools: [writeTool(executed)] });
    const first = await openSession({ agent: agent(overBudget), id: "s", store, permissions: "full-access" });
    try {
      // 900 input tokens were spent before the stop: a budget of 800 is already used up.
      await expect(first.resume({ budget: { maxInputTokens: 800 } }).result).rejects.toMatchObject({
        code: "budget_exceeded",
      });
    } finally {
      await first.close();
    }
    expect(overBudget.requests).toHaveLength(0);
    // The call itself was settled before the budget stopped the Run.
    expect(executed).toEqual([{ path: "a", text: "b" }]);
  });

  it("of a resumed Run that completes includes the earlier spend", async () => {
    const store = await storeWithStoppedRun({
      message: { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "noop", input: {} }] },
      stopReason: "tool-calls",
      usage: { inputTokens: 900, outputTokens: 50 },
    });
    const model = scriptedModel([{ text: "finished", usage: { inputTokens: 100, outputTokens: 5 } }]);
    const noop = defineTool({ name: "noop", description: "does nothing", readOnly: true, execute: () => "ok" });
    const session = await openSession({ agent: defineAgent("test.ending", { model, tools: [noop] }), id: "s", store });
    try {
      const result = await session.resume({ budget: { maxInputTokens: 1_000 } }).result;
      expect(result.usage).toMatchObject({ inputTokens: 1_000, outputTokens: 55 });
      expect(session.usage().byRun.r1).toMatchObject({ calls: 2, inputTokens: 1_000, outputTokens: 55 });
    } finally {
      await session.close();
    }
  });
});
