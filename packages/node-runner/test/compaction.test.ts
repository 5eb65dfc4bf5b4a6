import { readdir } from "node:fs/promises";
import {
  type Agent,
  defineAgent,
  defineCapability,
  defineTool,
  type Message,
  type ModelBinding,
  type ModelRequest,
  type RunEvent,
} from "@castellan/harness";
import { type ScriptedModel, type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  createMemorySessionStore,
  createNodeRunner,
  type HarnessContextBudget,
  type NodeRunnerPlugin,
  type SessionStore,
} from "../src/index.js";
import { keptMessageCount } from "../src/kernel/run/compaction.js";
import { collect, fileRecords, latch, openOnOwnRunner, storePlugin, tempDirPerTest, textOf } from "./support/index.ts";

// Each page is ~400 estimated tokens. With a 2,000-token window, 200 reserved and the default
// threshold (0.8) a request may hold ~1,440 tokens: three turns of pages (four pages) pass it,
// so the fourth turn is preceded by a compaction. keepRecent 0.25 keeps ~450 tokens: the last
// turn (an assistant message with two tool calls and both results, ~810 tokens) is kept whole.
const page = (name: string) => `page ${name}: ${"x".repeat(1_600)}`;
const budget: Partial<HarnessContextBudget> = { reserveOutputTokens: 200 };
const liveObservation = "LIVE OBSERVATION 42";
const summaryPrefix = "Summary of the earlier conversation (compacted):";

const temp = tempDirPerTest("castellan-compaction-");

function researchAgent(model: ModelBinding | string): Agent {
  const fetchPage = defineTool({
    name: "fetch",
    description: "Fetch a page",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    execute: ({ name }: { name: string }, ctx) => {
      ctx.setState((state) => ({ fetched: (state.fetched as number) + 1 }));
      return page(name);
    },
  });
  const observer = defineCapability({
    name: "observer",
    instructions: [{ name: "live", text: liveObservation, placement: "context" }],
  });
  return defineAgent("test.research", {
    model,
    state: { fetched: 0 },
    instructions: {
      identity: "Research.",
      progress: (ctx) => `Fetched so far: ${String(ctx.state.fetched)}; receipts: ${ctx.toolCalls("fetch").length}.`,
    },
    capabilities: [observer],
    tools: [fetchPage],
  });
}

/** Three turns of tool calls (the third with two calls), reaching the threshold. */
const researchTurns: ScriptedStepSource[] = [
  { toolCalls: [{ name: "fetch", input: { name: "a" } }], usage: { inputTokens: 100, outputTokens: 10 } },
  { toolCalls: [{ name: "fetch", input: { name: "b" } }], usage: { inputTokens: 600, outputTokens: 10 } },
  {
    toolCalls: [
      { name: "fetch", input: { name: "c" } },
      { name: "fetch", input: { name: "d" } },
    ],
    usage: { inputTokens: 1_100, outputTokens: 20 },
  },
];

function openResearch(options: {
  readonly agent: Agent;
  readonly store?: SessionStore;
  readonly id?: string;
  readonly contextBudget?: Partial<HarnessContextBudget>;
  readonly plugins?: readonly NodeRunnerPlugin[];
}) {
  return openOnOwnRunner(
    {
      agent: options.agent,
      plugins: [
        storePlugin(options.store ?? createFileSessionStore({ directory: temp.path })),
        ...(options.plugins ?? []),
      ],
      permissions: "full-access",
      contextBudget: options.contextBudget ?? budget,
    },
    { id: options.id ?? "research" },
  );
}

/** The records of the research Session's file-store log. */
const records = () => fileRecords(temp.path, "research");

const isSummaryRequest = (request: ModelRequest | undefined) =>
  request !== undefined && request.tools.length === 0 && textOf(request.messages.at(-1)).includes("Summarize");

/** Every tool result in `messages` follows the assistant message that made its call, with nothing between. */
function expectCallsWithResults(messages: readonly Message[]) {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role !== "tool") continue;
    let owner = index - 1;
    while (messages[owner]?.role === "tool") owner--;
    const assistant = messages[owner];
    expect(assistant?.role).toBe("assistant");
    if (assistant?.role === "assistant") {
      expect(assistant.toolCalls.map((call) => call.id)).toContain(message.toolCallId);
    }
  }
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    const results = messages.slice(index + 1, index + 1 + message.toolCalls.length);
    expect(results.map((result) => (result.role === "tool" ? result.toolCallId : result.role))).toEqual(
      message.toolCalls.map((call) => call.id),
    );
  }
}

describe("automatic compaction", () => {
  it("summarizes before the turn that would pass the threshold, then continues from the summary", async () => {
    const model = scriptedModel(
      [
        ...researchTurns,
        { text: "SUMMARY-1: pages a and b were fetched.", usage: { inputTokens: 900, outputTokens: 30 } },
        { text: "All four pages read.", usage: { inputTokens: 1_000, outputTokens: 15 } },
      ],
      { contextWindow: 2_000 },
    );
    const { session, close } = await openResearch({ agent: researchAgent(model) });
    let events: RunEvent[];
    try {
      const run = session.run("Read pages a to d.");
      events = await collect(run);
      const result = await run.result;
      expect(result.text).toBe("All four pages read.");
      expect(result.turns).toBe(4);
      expect(session.inspect().state).toEqual({ fetched: 4 });
    } finally {
      await close();
    }
    model.assertComplete();
    const requests = model.requests;
    expect(requests.map(isSummaryRequest)).toEqual([false, false, false, true, false]);

    // The summary request: the conversation up to the kept part, no tools, no live observations.
    const summaryRequest = requests[3] as ModelRequest;
    expect(summaryRequest.tools).toEqual([]);
    expect(summaryRequest.hostedTools).toEqual([]);
    expect(summaryRequest.context).toBe("");
    expect(JSON.stringify(summaryRequest)).not.toContain(liveObservation);
    expect(summaryRequest.system).not.toContain("Fetched so far");
    expect(summaryRequest.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
    ]);
    expect(textOf(summaryRequest.messages[4])).toBe(page("b"));
    // Normal requests carry the context-placed section every turn.
    for (const index of [0, 1, 2, 4]) expect(requests[index]?.context).toContain(liveObservation);

    // The next turn starts with the summary, then the kept turn whole: a call is never split from its results.
    const after = requests[4] as ModelRequest;
    expect(after.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(textOf(after.messages[0])).toBe(`${summaryPrefix}\n\nSUMMARY-1: pages a and b were fetched.`);
    expectCallsWithResults(after.messages);
    expect(after.messages[1]).toMatchObject({ role: "assistant", toolCalls: [{ name: "fetch" }, { name: "fetch" }] });
    // Committed state and receipts survive the compaction.
    expect(after.system).toContain("Fetched so far: 4; receipts: 4.");

    // Events: the compaction sits inside turn 4, before its model call.
    const kinds = events.map((event) => event.kind);
    const turn4 = kinds.lastIndexOf("turn-start");
    expect(kinds.slice(turn4, turn4 + 4)).toEqual([
      "turn-start",
      "compaction-start",
      "compaction-end",
      "assistant-text-delta",
    ]);
    expect(kinds.filter((kind) => kind.startsWith("compaction"))).toHaveLength(2);
    const start = events.find((event) => event.kind === "compaction-start");
    const end = events.find((event) => event.kind === "compaction-end");
    expect(start).toMatchObject({ reason: "budget" });
    expect(end).toMatchObject({ keptMessages: 3 });
    if (start?.kind !== "compaction-start" || end?.kind !== "compaction-end") throw new Error("missing events");
    expect(end.tokensBefore).toBe(start.tokensBefore);
    expect(end.tokensAfter).toBeLessThan(end.tokensBefore);

    // The log keeps every original record and adds the compaction checkpoint.
    const saved = await records();
    const compaction = saved.filter((record) => record.kind === "compaction");
    expect(compaction).toEqual([
      {
        kind: "compaction",
        runId: events[0]?.runId,
        summary: `${summaryPrefix}\n\nSUMMARY-1: pages a and b were fetched.`,
        keptMessages: 3,
        tokensBefore: start.tokensBefore,
        model: "scripted/model",
        usage: { inputTokens: 900, outputTokens: 30 },
      },
    ]);
    const kindsSaved = saved.map((record) => record.kind);
    expect(kindsSaved.indexOf("compaction")).toBe(kindsSaved.lastIndexOf("tool-batch-end") + 1);
    const receipts = saved.filter((record) => record.kind === "tool-end");
    expect(receipts.map((record) => record.kind === "tool-end" && textOf(record.result))).toEqual(
      ["a", "b", "c", "d"].map(page),
    );
    expect(saved.find((record) => record.kind === "run-start")).toMatchObject({
      input: [{ type: "text", text: "Read pages a to d." }],
    });
    expect(saved.filter((record) => record.kind === "assistant-message")).toHaveLength(4);
  });

  it("restores the compacted view when the Session is reopened, with receipts and state", async () => {
    const first = scriptedModel([...researchTurns, { text: "SUMMARY-1" }, { text: "done" }], { contextWindow: 2_000 });
    const opened = await openResearch({ agent: researchAgent(first) });
    try {
      await opened.session.run("Read pages a to d.").result;
    } finally {
      await opened.close();
    }
    first.assertComplete();

    const second = scriptedModel([{ text: "continued" }], { contextWindow: 2_000 });
    const reopened = await openResearch({ agent: researchAgent(second) });
    try {
      expect(reopened.session.inspect().state).toEqual({ fetched: 4 });
      expect((await reopened.session.run("Continue.").result).text).toBe("continued");
    } finally {
      await reopened.close();
    }
    const request = second.requests[0] as ModelRequest;
    expect(request.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "user",
    ]);
    expect(textOf(request.messages[0])).toBe(`${summaryPrefix}\n\nSUMMARY-1`);
    expectCallsWithResults(request.messages);
    expect(request.system).toContain("Fetched so far: 4; receipts: 4.");
    expect(request.context).toContain(liveObservation);
    // The transcript is still whole on disk.
    expect((await records()).filter((record) => record.kind === "tool-end")).toHaveLength(4);
  });

  it("uses a compaction model registered by name to write the summary", async () => {
    const model = scriptedModel([...researchTurns, { text: "done" }], { contextWindow: 2_000 });
    const summarizer = scriptedModel([{ text: "SUMMARY-R", usage: { inputTokens: 50, outputTokens: 5 } }], {
      specifier: "summarizer/small",
    });
    const { session, close } = await openResearch({
      agent: researchAgent(model),
      contextBudget: { ...budget, model: "summarizer" },
      plugins: [{ name: "test.summarizer", apply: (host) => host.registerModel("summarizer", summarizer) }],
    });
    try {
      expect((await session.run("Read pages a to d.").result).text).toBe("done");
      const compactions = session.usage().entries.filter((entry) => entry.purpose === "compaction");
      expect(compactions).toMatchObject([{ model: "summarizer/small", usage: { inputTokens: 50, outputTokens: 5 } }]);
    } finally {
      await close();
    }
    model.assertComplete();
    summarizer.assertComplete();
    expect(model.requests.some(isSummaryRequest)).toBe(false);
    expect(isSummaryRequest(summarizer.requests[0])).toBe(true);
    expect(JSON.stringify(summarizer.requests[0])).not.toContain(liveObservation);
    expect(textOf(model.requests[3]?.messages[0])).toContain("SUMMARY-R");
    expect((await records()).find((record) => record.kind === "compaction")).toMatchObject({
      model: "summarizer/small",
    });
  });

  it("uses a compaction model given as a binding, with the configured instructions", async () => {
    const model = scriptedModel([...researchTurns, { text: "done" }], { contextWindow: 2_000 });
    const summarizer = scriptedModel([{ text: "SUMMARY-B" }], { specifier: "summarizer/bound" });
    const { session, close } = await openResearch({
      agent: researchAgent(model),
      contextBudget: { ...budget, model: summarizer, instructions: "Summarize tersely." },
    });
    try {
      await session.run("Read pages a to d.").result;
    } finally {
      await close();
    }
    model.assertComplete();
    summarizer.assertComplete();
    expect(summarizer.requests[0]?.system).toBe("Summarize tersely.");
    expect(textOf(model.requests[3]?.messages[0])).toContain("SUMMARY-B");
    expect((await records()).find((record) => record.kind === "compaction")).toMatchObject({
      model: "summarizer/bound",
    });
  });

  it("refuses to open the Session with model_not_found when the compaction model is not registered", async () => {
    const model = scriptedModel([], { contextWindow: 2_000 });
    await expect(
      openResearch({ agent: researchAgent(model), contextBudget: { ...budget, model: "missing-summarizer" } }),
    ).rejects.toMatchObject({
      code: "model_not_found",
      message: expect.stringContaining('contextBudget.model names model "missing-summarizer"'),
    });
    // Nothing was saved and the model was never asked.
    await expect(readdir(temp.path)).resolves.toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it("resolves a named compaction model through the Runner's resolver, per summary", async () => {
    const main = scriptedModel([...researchTurns, { text: "done" }], { specifier: "main", contextWindow: 2_000 });
    const summarizer = scriptedModel([{ text: "SUMMARY-R" }], { specifier: "summarizer" });
    const asked: string[] = [];
    const resolver: NodeRunnerPlugin = {
      name: "resolver",
      apply: (host) =>
        host.registerModelResolver({
          resolve: ({ name }) => {
            asked.push(name);
            return name === "app/summarizer" ? summarizer : main;
          },
        }),
    };
    const { session, close } = await openResearch({
      agent: researchAgent("app/chat"),
      contextBudget: { ...budget, model: "app/summarizer", contextWindow: 2_000 },
      plugins: [resolver],
    });
    try {
      await session.run("Read pages a to d.").result;
    } finally {
      await close();
    }
    expect(summarizer.requests).toHaveLength(1);
    expect(asked).toContain("app/summarizer");
    expect(asked.filter((name) => name === "app/chat")).toHaveLength(4);
    const compaction = (await records()).find((record) => record.kind === "compaction");
    expect(compaction).toMatchObject({ model: "summarizer", summary: expect.stringContaining("SUMMARY-R") });
  });

  it("fails the Run with compaction_failed when the compaction model fails, saves nothing, and can compact later", async () => {
    const model = scriptedModel([...researchTurns, { text: "recovered" }], { contextWindow: 2_000 });
    const summarizer = scriptedModel([{ error: new Error("summarizer down") }, { text: "SUMMARY-2" }], {
      specifier: "summarizer/flaky",
    });
    const { session, close } = await openResearch({
      agent: researchAgent(model),
      contextBudget: { ...budget, model: summarizer },
    });
    try {
      const run = session.run("Read pages a to d.");
      const events = await collect(run);
      await expect(run.result).rejects.toMatchObject({
        code: "compaction_failed",
        message: expect.stringContaining("summarizer down"),
      });
      expect(events.map((event) => event.kind).filter((kind) => kind.startsWith("compaction"))).toEqual([
        "compaction-start",
      ]);
      const saved = await records();
      expect(saved.some((record) => record.kind === "compaction")).toBe(false);
      expect(saved.filter((record) => record.kind === "tool-end")).toHaveLength(4);
      expect(session.inspect().state).toEqual({ fetched: 4 });
      expect(session.usage().entries.every((entry) => entry.purpose === "turn")).toBe(true);

      // The conversation is as it was: the next Run compacts it and goes on.
      expect((await session.run("Try again.").result).text).toBe("recovered");
    } finally {
      await close();
    }
    model.assertComplete();
    summarizer.assertComplete();
    expect((await records()).filter((record) => record.kind === "compaction")).toHaveLength(1);
    expect(textOf(model.requests[3]?.messages[0])).toContain("SUMMARY-2");
    expectCallsWithResults(model.requests[3]?.messages ?? []);
  });

  it("compacts nothing automatically when no context window is known", async () => {
    const scripted = scriptedModel([...researchTurns, { text: "done" }]);
    // A registered runtime without a binding's identity: no contextWindow.
    const runtime = { stream: scripted.stream.bind(scripted) };
    const { session, close } = await openResearch({
      agent: researchAgent("plain"),
      contextBudget: { reserveOutputTokens: 0, threshold: 0.01 },
      plugins: [{ name: "test.plain", apply: (host) => host.registerModel("plain", runtime) }],
    });
    try {
      const events = await collect(session.run("Read pages a to d."));
      expect(events.some((event) => event.kind.startsWith("compaction"))).toBe(false);
    } finally {
      await close();
    }
    scripted.assertComplete();
    expect(scripted.requests.some(isSummaryRequest)).toBe(false);
    expect((await records()).some((record) => record.kind === "compaction")).toBe(false);
  });

  it("compacts a runtime without a context window when the budget gives one", async () => {
    const scripted = scriptedModel([...researchTurns, { text: "SUMMARY-W" }, { text: "done" }]);
    const runtime = { stream: scripted.stream.bind(scripted) };
    const { session, close } = await openResearch({
      agent: researchAgent("plain"),
      contextBudget: { ...budget, contextWindow: 2_000 },
      plugins: [{ name: "test.plain", apply: (host) => host.registerModel("plain", runtime) }],
    });
    try {
      await session.run("Read pages a to d.").result;
    } finally {
      await close();
    }
    scripted.assertComplete();
    expect(scripted.requests.map(isSummaryRequest)).toEqual([false, false, false, true, false]);
    expect((await records()).find((record) => record.kind === "compaction")).toMatchObject({ model: "plain" });
  });
});

describe("session.compact()", () => {
  /** Two Runs, each one tool call and an answer: 8 messages. */
  async function twoRuns(model: ScriptedModel) {
    const store = createMemorySessionStore();
    const opened = await openResearch({ agent: researchAgent(model), store, contextBudget: {} });
    await opened.session.run("first").result;
    await opened.session.run("second").result;
    return opened;
  }
  const twoRunSteps: ScriptedStepSource[] = [
    { toolCalls: [{ name: "fetch", input: { name: "a" } }] },
    { text: "first done" },
    { toolCalls: [{ name: "fetch", input: { name: "b" } }] },
    { text: "second done" },
  ];

  it("summarizes the conversation when idle and returns the outcome", async () => {
    const model = scriptedModel([
      ...twoRunSteps,
      { text: "SUMMARY-M", usage: { inputTokens: 20, outputTokens: 3 } },
      { text: "third done" },
    ]);
    const { session, close } = await twoRuns(model);
    try {
      const outcome = await session.compact();
      expect(outcome).toMatchObject({
        summary: `${summaryPrefix}\n\nSUMMARY-M`,
        compactedMessages: 7,
        keptMessages: 1,
        model: "scripted/model",
        usage: { inputTokens: 20, outputTokens: 3 },
      });
      expect(outcome?.tokensAfter).toBeLessThan(outcome?.tokensBefore as number);
      expect(session.usage().entries.at(-1)).toMatchObject({ runId: undefined, purpose: "compaction" });
      expect(isSummaryRequest(model.requests[4])).toBe(true);
      expect(model.requests[4]?.messages).toHaveLength(8);
      expect(JSON.stringify(model.requests[4])).not.toContain(liveObservation);

      // Nothing new since: nothing to compact, and no model call.
      expect(await session.compact()).toBeUndefined();
      expect(model.requests).toHaveLength(5);

      await session.run("third").result;
      const next = model.requests[5] as ModelRequest;
      expect(next.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
      expect(textOf(next.messages[0])).toBe(`${summaryPrefix}\n\nSUMMARY-M`);
      expect(textOf(next.messages[1])).toBe("second done");
      expect(next.system).toContain("Fetched so far: 2; receipts: 2.");
    } finally {
      await close();
    }
    model.assertComplete();
  });

  it("returns undefined when there is nothing to compact", async () => {
    const model = scriptedModel([]);
    const { session, close } = await openResearch({ agent: researchAgent(model), contextBudget: {} });
    try {
      expect(await session.compact()).toBeUndefined();
      expect(model.requests).toHaveLength(0);
    } finally {
      await close();
    }
  });

  it("throws run_active during a Run", async () => {
    const started = latch();
    const gate = latch();
    const wait = defineTool({
      name: "wait",
      description: "Wait",
      execute: async () => {
        started.resolve();
        await gate.promise;
        return "waited";
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "wait", input: {} }] }, { text: "done" }]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.compact-busy", { model, tools: [wait] }),
      permissions: "full-access",
    });
    try {
      const session = await runner.createSession();
      const run = session.run("go");
      await started.promise;
      await expect(session.compact()).rejects.toMatchObject({ code: "run_active" });
      gate.resolve();
      expect((await run.result).text).toBe("done");
      expect(model.requests.some(isSummaryRequest)).toBe(false);
    } finally {
      await runner.close();
    }
  });

  it("saves a manual compaction that a reopened Session restores", async () => {
    const model = scriptedModel([...twoRunSteps, { text: "SUMMARY-F" }]);
    const store = createFileSessionStore({ directory: temp.path });
    const opened = await openResearch({ agent: researchAgent(model), store, contextBudget: {} });
    try {
      await opened.session.run("first").result;
      await opened.session.run("second").result;
      expect(await opened.session.compact()).toMatchObject({ keptMessages: 1, compactedMessages: 7 });
    } finally {
      await opened.close();
    }
    const compaction = (await records()).find((record) => record.kind === "compaction");
    expect(compaction).toMatchObject({ keptMessages: 1, model: "scripted/model" });
    expect(compaction && "runId" in compaction).toBe(false);

    const next = scriptedModel([{ text: "ok" }]);
    const reopened = await openResearch({ agent: researchAgent(next), store, contextBudget: {} });
    try {
      await reopened.session.run("third").result;
    } finally {
      await reopened.close();
    }
    expect(next.requests[0]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(textOf(next.requests[0]?.messages[0])).toBe(`${summaryPrefix}\n\nSUMMARY-F`);
  });
});

describe("the kept part of a compaction", () => {
  const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
  const assistant = (ids: readonly string[], text = ""): Message => ({
    role: "assistant",
    content: text ? [{ type: "text", text }] : [],
    toolCalls: ids.map((id) => ({ id, name: "fetch", input: {} })),
  });
  const result = (id: string, size = 400): Message => ({
    role: "tool",
    toolCallId: id,
    toolName: "fetch",
    content: [{ type: "text", text: "x".repeat(size) }],
    isError: false,
  });
  const conversation: Message[] = [
    user("go"),
    assistant(["1"]),
    result("1"),
    assistant(["2", "3", "4"]),
    result("2"),
    result("3"),
    result("4"),
    user("joined"),
    assistant([], "done"),
  ];

  it("starts at a user or assistant message for every budget, so results stay with their call", () => {
    const counts = new Set<number>();
    for (let keep = 0; keep <= 1_000; keep++) {
      const kept = keptMessageCount(conversation, keep);
      counts.add(kept);
      expect(kept).toBeGreaterThanOrEqual(1);
      expect(conversation[conversation.length - kept]?.role).not.toBe("tool");
      expectCallsWithResults(conversation.slice(conversation.length - kept));
    }
    expect([...counts].sort((left, right) => left - right)).toEqual([1, 2, 6, 8, 9]);
  });

  it("keeps the last exchange whole even when it alone is over the budget", () => {
    const tail: Message[] = [user("go"), assistant(["1", "2"]), result("1", 8_000), result("2", 8_000)];
    expect(keptMessageCount(tail, 0)).toBe(3);
    expect(keptMessageCount([user("only")], 0)).toBe(1);
    expect(keptMessageCount([], 100)).toBe(0);
  });
});
