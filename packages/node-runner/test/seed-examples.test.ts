// The specification's examples, ported by changing only their imports (and filling in the
// application code they leave to the reader), typecheck against the packages and run on the
// scripted model: the model binding forms, the permission preset, per-turn instructions and
// tools, reactions to settled receipts, durable state, and the host contracts they import.
import {
  defineAgent,
  defineCapability,
  defineTool,
  type ModelBinding,
  type ModelRuntime,
  resource,
} from "@castellan/harness";
import { projectAgent } from "@castellan/harness/testing";
import { anthropic } from "@castellan/models/anthropic";
import { scriptedModel } from "@castellan/models/testing";
import type {
  BindingHandle,
  BindingKind,
  BindingLease,
  NodeRunnerPlugin,
  SandboxLease,
  SandboxResolver,
  ToolApprovalAdapter,
  ToolApprovalAnswer,
  ToolApprovalRequest,
  ToolPermissionContribution,
} from "@castellan/node-runner";
import { createNodeRunner, openSession } from "@castellan/node-runner";
import { describe, expect, it } from "vitest";

describe("Bind your models", () => {
  it("declares an Anthropic binding directly, with a specifier in its instructions, and connects to nothing", async () => {
    const model = anthropic({
      apiKey: "sk-ant-example",
      model: "claude-sonnet-4-6",
    });
    const Assistant = defineAgent("app.assistant", {
      model,
      instructions: `Answer clearly using ${model.specifier}.`,
    });
    const session = await openSession({ agent: Assistant });
    try {
      expect(session.inspect().current.sections.map((section) => section.text)).toEqual([
        "Answer clearly using anthropic/claude-sonnet-4-6.",
      ]);
      expect(session.inspect().compaction).toMatchObject({ automatic: true, contextWindow: 200_000 });
    } finally {
      await session.close();
    }
  });
});

describe("Model binding details", () => {
  it("names a runtime with dynamic connections as { specifier, ...runtime }", async () => {
    // A runtime of the application's own: a stream method and nothing else.
    const scripted = scriptedModel([{ text: "named" }]);
    const runtime: ModelRuntime = { stream: (request, options) => scripted.stream(request, options) };
    const model: ModelBinding = { specifier: "app/dynamic", ...runtime };
    const session = await openSession({ agent: defineAgent("app.dynamic", { model }) });
    try {
      expect((await session.run("hi").result).text).toBe("named");
      expect(session.inspect().compaction).toMatchObject({ automatic: false, model: "app/dynamic" });
    } finally {
      await session.close();
    }
  });

  it("registers application runtimes under the names the agent declares", async () => {
    const chatModel = scriptedModel([{ text: "chat" }]);
    const reviewModel = scriptedModel([{ text: "review" }]);
    const models: NodeRunnerPlugin = {
      name: "app.models",
      apply(host) {
        host.registerModel("app/chat", chatModel);
        host.registerModel("app/review", reviewModel);
      },
    };
    const runner = await createNodeRunner({ agent: defineAgent("app.chat", { model: "app/chat" }), plugins: [models] });
    try {
      const session = await runner.createSession();
      expect((await session.run("hi").result).text).toBe("chat");
      expect((await session.run("review", { model: "app/review" }).result).text).toBe("review");
    } finally {
      await runner.close();
    }
  });
});

describe("Choose a Tool permission preset", () => {
  it("openSession defaults to ask-on-write: only declared read-only tools run without approval", async () => {
    const ran: string[] = [];
    const look = defineTool({
      name: "look",
      description: "Look",
      readOnly: true,
      execute: () => void ran.push("look"),
    });
    const write = defineTool({ name: "write", description: "Write", execute: () => void ran.push("write") });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "look", input: {} },
          { name: "write", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const session = await openSession({ agent: defineAgent("app.preset", { model, tools: [look, write] }) });
    try {
      await session.run("go").result;
    } finally {
      await session.close();
    }
    expect(ran).toEqual(["look"]);
  });
});

describe("Change instructions and Tools each turn", () => {
  async function searchProject(query: string, options: { turn: number }): Promise<string> {
    return `results for ${query} at turn ${options.turn}`;
  }
  const model = scriptedModel([]);
  const Agent = defineAgent("example.bounded-search", {
    model,
    instructions: {
      identity: "Answer questions about the project.",
      phase: (ctx) =>
        ctx.turn <= 3 ? "Search for relevant evidence." : "Answer using the evidence already collected.",
    },
    tools: [
      defineTool({
        name: "search",
        description: "Search the project",
        inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
        readOnly: true,
        enabled: (ctx) => ctx.turn <= 3,
        async execute({ query }, ctx) {
          return await searchProject(query, { turn: ctx.turn });
        },
      }),
    ],
  });

  it("projects the search phase for early turns and the answer phase after", () => {
    expect(projectAgent(Agent, { turn: 2 })).toMatchObject({
      tools: ["search"],
      system: expect.stringContaining("Search for relevant evidence."),
    });
    expect(projectAgent(Agent, { turn: 4 })).toMatchObject({
      tools: [],
      system: expect.stringContaining("Answer using the evidence already collected."),
    });
  });
});

describe("React to settled Tool results", () => {
  it("hides the tool after a success and adds the retry section after a failure", async () => {
    let attempts = 0;
    async function createWeeklyReport(): Promise<string> {
      attempts++;
      if (attempts === 1) throw new Error("the report service is down");
      return "Report created.";
    }
    const createReport = defineTool({
      name: "create_report",
      description: "Create the weekly report.",
      enabled: (ctx) => !ctx.toolCalls("create_report").some((call) => call.ok),
      async execute() {
        return await createWeeklyReport();
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "create_report", input: {} }] },
      { toolCalls: [{ name: "create_report", input: {} }] },
      { text: "The report is done." },
    ]);
    const Agent = defineAgent("app.report-once", {
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
    const session = await openSession({ agent: Agent, permissions: "full-access" });
    try {
      const result = await session.run("Make the weekly report.").result;
      expect(result.content).toEqual([{ type: "text", text: "The report is done." }]);
    } finally {
      await session.close();
    }
    expect(model.requests.map((request) => request.tools.map((tool) => tool.name))).toEqual([
      ["create_report"],
      ["create_report"],
      [],
    ]);
    expect(model.requests[1]?.system).toContain("The last report attempt failed.");
    expect(model.requests[2]?.system).not.toContain("The last report attempt failed.");
  });
});

describe("Keep state across Tools and turns", () => {
  it("counts updates in durable state and stops offering the tool at three", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "record_update", input: {} }] },
      { toolCalls: [{ name: "record_update", input: {} }] },
      { toolCalls: [{ name: "record_update", input: {} }] },
      { text: "Three updates recorded." },
    ]);
    const Reporter = defineAgent("app.reporter", {
      model,
      state: { updates: 0 },
      instructions: {
        identity: "Record completed report updates.",
        progress: (ctx) => `Report updates so far: ${ctx.state.updates}.`,
      },
      tools: [
        defineTool({
          name: "record_update",
          description: "Record a completed report update",
          enabled: (ctx) => (ctx.state.updates as number) < 3,
          async execute(_input, ctx) {
            ctx.setState((state) => ({ updates: (state.updates as number) + 1 }));
            return `Recorded update ${String(ctx.state.updates)}.`;
          },
        }),
      ],
    });
    const session = await openSession({ agent: Reporter, permissions: "full-access" });
    try {
      await session.run("Record the updates.").result;
      await session.setState("updates", 0);
      expect(session.inspect()).toMatchObject({ state: { updates: 3 }, pendingState: [{ updates: 0 }] });
    } finally {
      await session.close();
    }
    expect(model.requests[3]?.tools).toEqual([]);
    expect(model.requests[3]?.system).toContain("Report updates so far: 3.");
  });
});

describe("the host contracts", () => {
  it("are the types a host's plugins implement, and a tool sees what they provide", async () => {
    const counter: BindingKind<{ readonly start: number }, { count: number }> = {
      name: "counter",
      async acquire(spec): Promise<BindingLease<{ count: number }>> {
        return { value: { count: spec.start }, close: () => undefined };
      },
    };
    const sandboxes: SandboxResolver = {
      async open({ specifier }): Promise<SandboxLease> {
        return { sandbox: { specifier }, close: () => undefined };
      },
    };
    const asked: ToolApprovalRequest[] = [];
    const approvals: ToolApprovalAdapter = {
      async request(request: ToolApprovalRequest): Promise<ToolApprovalAnswer> {
        asked.push(request);
        return { decision: "allow", reason: "approved by the host" };
      },
    };
    const policy = (): ToolPermissionContribution => ({ decision: "ask", reason: "the host asks about every call" });
    const seen: { handles: readonly BindingHandle[]; sandbox: unknown }[] = [];
    const count = defineTool({
      name: "count",
      description: "Read the counter",
      readOnly: true,
      execute: (_input, ctx) => {
        seen.push({ handles: ctx.resources, sandbox: ctx.sandbox });
        return "counted";
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "count", input: {} }] }, { text: "ok" }]);
    const agent = defineAgent("app.host", {
      model,
      sandbox: "local/box",
      capabilities: [
        defineCapability({ name: "counting", tools: [count], resources: [resource(counter, { start: 3 })] }),
      ],
    });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        {
          name: "app.host",
          apply(host) {
            host.registerSandboxResolver(sandboxes);
            host.registerApproval(approvals);
            host.hooks.toolPermission(policy);
          },
        },
      ],
    });
    try {
      const session = await runner.createSession();
      expect((await session.run("hi").result).text).toBe("ok");
    } finally {
      await runner.close();
    }
    expect(asked).toMatchObject([{ toolName: "count", reason: "the host asks about every call" }]);
    expect(seen).toEqual([
      {
        handles: [expect.objectContaining({ kind: "counter", value: { count: 3 } })],
        sandbox: { specifier: "local/box" },
      },
    ]);
  });
});
