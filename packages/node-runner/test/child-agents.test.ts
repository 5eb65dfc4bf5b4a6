// Child agents through a real Runner: a foreground child Session per call with only its granted
// tools, the parent's permissions with `parent` on each request, child events inside the call,
// the report (completed, max_turns, timeout, truncated), delegation depth, and the child saved
// in the parent's store under its own id.
import {
  type BindingKind,
  defineAgent,
  defineCapability,
  defineTool,
  type RunEvent,
  resource,
} from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  type ChildAgentReport,
  childAgent,
  createMemorySessionStore,
  createNodeRunner,
  type ToolApprovalRequest,
} from "../src/index.js";
import { approvalPlugin, drain, plugin, textOf } from "./support/index.ts";

const look = defineTool({ name: "look", description: "Looks", readOnly: true, execute: () => "looked" });
const write = defineTool({ name: "write", description: "Writes", execute: () => "wrote" });
const slow = defineTool({
  name: "slow",
  description: "Slow",
  readOnly: true,
  execute: (_input, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped"))),
});

function child(id: string, steps: readonly ScriptedStepSource[]) {
  return defineAgent(id, { model: scriptedModel(steps), tools: [look, write, slow] });
}

async function parentRun(options: {
  child: ReturnType<typeof defineAgent>;
  grants: string[];
  task?: string;
  bounds?: object;
  permissions?: "ask-on-write" | "full-access";
}) {
  const asked: ToolApprovalRequest[] = [];
  const store = createMemorySessionStore();
  const model = scriptedModel([
    {
      toolCalls: [
        {
          id: "d1",
          name: `agent_${options.child.id.replace(/[^A-Za-z0-9_-]/g, "_")}`,
          input: { task: options.task ?? "Do the task." },
        },
      ],
    },
    { text: "parent done" },
  ]);
  const agent = defineAgent("test.parent", {
    model,
    capabilities: [childAgent(options.child, { toolGrants: options.grants, ...options.bounds })],
  });
  const runner = await createNodeRunner({
    agent,
    permissions: options.permissions ?? "ask-on-write",
    plugins: [
      plugin("test.store", (host) => host.registerSessionStore(store)),
      approvalPlugin(async (request) => {
        asked.push(request);
        return { decision: "allow" };
      }),
    ],
  });
  const session = await runner.createSession({ id: "p" });
  const { events } = await drain(session.run("delegate"));
  await session.close();
  await runner.close();
  const end = events.find(
    (event): event is Extract<RunEvent, { kind: "tool-end" }> => event.kind === "tool-end" && event.toolCallId === "d1",
  );
  return { events, asked, store, model, end, report: JSON.parse(textOf(end?.result)) as ChildAgentReport };
}

describe("childAgent()", () => {
  it("runs the task in a child Session with only its granted tools, under the parent's permissions, inside the call", async () => {
    const worker = child("test.worker", [
      {
        toolCalls: [
          { name: "look", input: {} },
          { name: "write", input: {} },
        ],
      },
      { text: "child finished" },
    ]);
    const run = await parentRun({ child: worker, grants: ["look"] });
    expect(run.report).toMatchObject({
      type: "child-agent-report",
      agentId: "test.worker",
      childSessionId: "p/child/d1",
      status: "completed",
      text: "child finished",
      truncated: false,
    });
    expect(run.end?.result.isError).toBe(false);
    // The child's model saw only the granted tool; the ungranted call did not run.
    const childEvents = run.events.flatMap((event) => (event.kind === "child-event" ? [event.event] : []));
    const childEnds = childEvents.filter((event) => event.kind === "tool-end");
    expect(childEnds.map((event) => event.kind === "tool-end" && [event.toolName, event.result.isError])).toEqual([
      ["look", false],
      ["write", true],
    ]);
    // The delegating call asked with its admission; the child's calls carry agent and parent.
    expect(run.asked[0]).toMatchObject({
      toolName: "agent_test_worker",
      admission: { policyKey: "child-agent", agentId: "test.worker", toolGrants: ["look"], readOnlyGrants: true },
    });
    // Child events come between the call's tool-start and tool-end.
    const kinds = run.events.map((event) => event.kind);
    const start = run.events.findIndex((event) => event.kind === "tool-start" && event.toolCallId === "d1");
    const end = run.events.findIndex((event) => event.kind === "tool-end" && event.toolCallId === "d1");
    expect(kinds.indexOf("child-event")).toBeGreaterThan(start);
    expect(kinds.lastIndexOf("child-event")).toBeLessThan(end);
    const log = await run.store.open("p/child/d1");
    expect(log.records.some((record) => record.kind === "run-start")).toBe(true);
    await log.close();
  });

  it("passes the child's calls through the parent's approval with agent and parent", async () => {
    const worker = child("test.writer", [{ toolCalls: [{ name: "write", input: {} }] }, { text: "wrote it" }]);
    const run = await parentRun({ child: worker, grants: ["write"] });
    const childAsk = run.asked.find((request) => request.toolName === "write");
    expect(childAsk).toMatchObject({
      agent: { id: "test.writer" },
      parent: { sessionId: "p", toolCallId: "d1", toolName: "agent_test_writer" },
    });
    expect(run.asked[0]?.admission).toMatchObject({ readOnlyGrants: false });
  });

  it("reports max_turns, timeout and a truncated answer as such", async () => {
    const looping = child(
      "test.looping",
      Array.from({ length: 10 }, () => ({ toolCalls: [{ name: "look", input: {} }] })),
    );
    expect(
      (await parentRun({ child: looping, grants: ["look"], bounds: { maxTurns: 3 }, permissions: "full-access" }))
        .report,
    ).toMatchObject({ status: "max_turns", turns: 3 });
    const stuck = child("test.stuck", [{ toolCalls: [{ name: "slow", input: {} }] }, { text: "late" }]);
    const timed = await parentRun({
      child: stuck,
      grants: ["slow"],
      bounds: { maxDurationMs: 200 },
      permissions: "full-access",
    });
    expect(timed.report.status).toBe("timeout");
    expect(timed.end?.result.isError).toBe(true);
    const chatty = child("test.chatty", [{ text: "é".repeat(20_000) }]);
    const cut = await parentRun({ child: chatty, grants: [], permissions: "full-access" });
    expect(cut.report).toMatchObject({ status: "completed", truncated: true });
    expect(Buffer.byteLength(cut.report.text)).toBeLessThanOrEqual(16_384);
  });

  it("refuses a grandchild at depth 1 (child_depth_exceeded) and runs it at depth 2", async () => {
    const grandchild = child("test.grand", [{ text: "grandchild done" }]);
    const middle = (steps: ScriptedStepSource[]) =>
      defineAgent("test.middle", {
        model: scriptedModel(steps),
        capabilities: [childAgent(grandchild, { toolGrants: [] })],
      });
    const call = { toolCalls: [{ name: "agent_test_grand", input: { task: "go deeper" } }] };
    const shallow = await parentRun({
      child: middle([call, { text: "middle done" }]),
      grants: ["agent_test_grand"],
      permissions: "full-access",
    });
    const refused = shallow.events.flatMap((event) =>
      event.kind === "child-event" && event.event.kind === "tool-end" ? [event.event] : [],
    );
    expect(refused[0]?.kind === "tool-end" && textOf(refused[0].result)).toMatch(/^child_depth_exceeded: /);
    const deep = await parentRun({
      child: middle([call, { text: "middle done" }]),
      grants: ["agent_test_grand"],
      bounds: { maxDepth: 2 },
      permissions: "full-access",
    });
    const ran = deep.events.flatMap((event) =>
      event.kind === "child-event" && event.event.kind === "tool-end" ? [event.event] : [],
    );
    expect(ran[0]?.kind === "tool-end" && JSON.parse(textOf(ran[0].result))).toMatchObject({
      status: "completed",
      text: "grandchild done",
    });
  });

  it("acquires the child's resources once per call, releases them when the call ends, and drains the child on a parent abort", async () => {
    const log: string[] = [];
    const kind: BindingKind<string, string> = {
      name: "spy",
      acquire: async (spec, { sessionId }) => {
        log.push(`acquire ${sessionId}`);
        return { value: spec, close: () => void log.push(`release ${sessionId}`) };
      },
    };
    const spied = defineAgent("test.spied", {
      model: scriptedModel([{ toolCalls: [{ name: "slow", input: {} }] }, { text: "late" }]),
      tools: [slow],
      capabilities: [defineCapability({ name: "spy", resources: [resource(kind, "x")] })],
    });
    const model = scriptedModel([
      { toolCalls: [{ id: "d1", name: "agent_test_spied", input: { task: "wait" } }] },
      { text: "parent done" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.parent-abort", { model, capabilities: [childAgent(spied, { toolGrants: ["slow"] })] }),
      permissions: "full-access",
    });
    try {
      const session = await runner.createSession({ id: "pa" });
      const controller = new AbortController();
      const run = session.run("delegate", { signal: controller.signal });
      const events: RunEvent[] = [];
      const done = (async () => {
        for await (const event of run) {
          events.push(event);
          if (event.kind === "child-event" && event.event.kind === "tool-start") controller.abort();
        }
      })();
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      await done;
      expect(log).toEqual(["acquire pa/child/d1", "release pa/child/d1"]);
      const childEnd = events.findLast((event) => event.kind === "child-event" && event.event.kind === "run-end");
      expect(childEnd).toBeDefined();
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it("binds a named child model from the Runner's registrations", async () => {
    const named = defineAgent("test.named", { model: "child/model", tools: [look] });
    const model = scriptedModel([
      { toolCalls: [{ id: "d1", name: "agent_test_named", input: { task: "hi" } }] },
      { text: "parent done" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.parent-named", { model, capabilities: [childAgent(named, { toolGrants: ["look"] })] }),
      permissions: "full-access",
      plugins: [
        plugin("test.models", (host) =>
          host.registerModel("child/model", scriptedModel([{ text: "from the named model" }])),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("delegate"));
      const end = events.find((event): event is Extract<RunEvent, { kind: "tool-end" }> => event.kind === "tool-end");
      expect(JSON.parse(textOf(end?.result))).toMatchObject({ status: "completed", text: "from the named model" });
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it("attributes the child's usage to the child's agent and the delegating call, and the parent's budget counts it", async () => {
    const spender = defineAgent("test.spender", {
      model: scriptedModel([{ text: "spent a lot", usage: { inputTokens: 900, outputTokens: 10 } }]),
      tools: [look],
    });
    const model = scriptedModel([
      {
        toolCalls: [{ id: "d1", name: "agent_test_spender", input: { task: "spend" } }],
        usage: { inputTokens: 50, outputTokens: 5 },
      },
      { text: "never asked" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.budget-parent", { model, capabilities: [childAgent(spender, { toolGrants: [] })] }),
      permissions: "full-access",
      budget: { maxInputTokens: 500 },
    });
    try {
      const session = await runner.createSession();
      await expect(session.run("delegate").result).rejects.toMatchObject({ code: "budget_exceeded" });
      expect(model.requests).toHaveLength(1);
      const entries = session.usage().entries;
      expect(entries.map((entry) => [entry.agentId, entry.usage.inputTokens, entry.toolCallId ?? null])).toEqual([
        ["test.budget-parent", 50, null],
        ["test.spender", 900, "d1"],
      ]);
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it("gives the child's Run what is left of the parent's budget", async () => {
    const spender = defineAgent("test.overspender", {
      model: scriptedModel([
        { toolCalls: [{ name: "look", input: {} }], usage: { inputTokens: 600, outputTokens: 10 } },
        { text: "never asked" },
      ]),
      tools: [look],
    });
    const model = scriptedModel([
      {
        toolCalls: [{ id: "d1", name: "agent_test_overspender", input: { task: "spend" } }],
        usage: { inputTokens: 50, outputTokens: 5 },
      },
      { text: "never asked either" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.budget-left", { model, capabilities: [childAgent(spender, { toolGrants: ["look"] })] }),
      permissions: "full-access",
      budget: { maxInputTokens: 500 },
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("delegate"));
      const end = events.find(
        (event): event is Extract<RunEvent, { kind: "tool-end" }> =>
          event.kind === "tool-end" && event.toolCallId === "d1",
      );
      expect(JSON.parse(textOf(end?.result))).toMatchObject({
        status: "failed",
        error: expect.stringContaining("budget"),
      });
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it("fails the parent's open with child_grant_unknown for a grant no tool of the child can answer", async () => {
    const worker = child("test.unknown", [{ text: "never" }]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.parent-unknown", {
        model: scriptedModel([]),
        capabilities: [childAgent(worker, { toolGrants: ["look", "no_such_tool"] })],
      }),
      permissions: "full-access",
    });
    try {
      await expect(runner.createSession()).rejects.toMatchObject({
        code: "child_grant_unknown",
        message: expect.stringMatching(/no tool "no_such_tool".*its tools are look, write, slow/),
      });
    } finally {
      await runner.close();
    }
  });

  it("checks a grant a child's resources might contribute when the child opens", async () => {
    const kind: BindingKind<string, string> = {
      name: "catalog",
      acquire: async (spec) => ({ value: spec, close: () => undefined }),
    };
    const leasing = defineAgent("test.leasing", {
      model: scriptedModel([{ text: "never" }]),
      tools: [look],
      capabilities: [defineCapability({ name: "catalog", resources: [resource(kind, "x")] })],
    });
    const run = await parentRun({ child: leasing, grants: ["from_the_server"], permissions: "full-access" });
    expect(run.report.status).toBe("failed");
    expect(run.report.error).toContain('has no tool "from_the_server" to grant');
  });
});
