import { describe, expect, it } from "vitest";
import {
  type BindingKind,
  buildProgram,
  DeclarationError,
  defineAgent,
  defineCapability,
  defineTool,
  hostTool,
  ProjectionError,
  resource,
  type ToolReceipt,
} from "../src/index.js";
import { projectAgent } from "../src/testing/index.js";

const model = "app/chat";
const tool = (name: string, enabled?: boolean | ((ctx: { turn: number }) => boolean)) =>
  defineTool({ name, description: name, execute: () => "", ...(enabled === undefined ? {} : { enabled }) });

describe("projectAgent", () => {
  it("renders the agent's sections in order and omits empty ones", () => {
    const agent = defineAgent("a", {
      model,
      params: ["issue"],
      instructions: {
        identity: "You fix issues.",
        issue: (ctx) => `Work on ${String(ctx.params.issue)}.`,
        phase: (ctx) => (ctx.turn <= 3 ? "Search first." : ""),
      },
    });
    const early = projectAgent(agent, { turn: 1, params: { issue: "SDK-42" } });
    expect(early.system).toBe("You fix issues.\n\nWork on SDK-42.\n\nSearch first.");
    expect(early.sections.map((section) => section.id)).toEqual(["agent:identity", "agent:issue", "agent:phase"]);
    const late = projectAgent(agent, { turn: 4, params: { issue: "SDK-42" } });
    expect(late.system).toBe("You fix issues.\n\nWork on SDK-42.");
  });

  it("places capability sections after the agent's, under their names, by placement", () => {
    const capability = defineCapability({
      name: "rules",
      instructions: [
        { name: "review-rules", text: "Check tests." },
        { name: "now", text: "It is turn one.", placement: "context" },
      ],
    });
    const projection = projectAgent(defineAgent("a", { model, instructions: "Review.", capabilities: [capability] }));
    expect(projection.system).toBe("Review.\n\n## review-rules\n\nCheck tests.");
    expect(projection.context).toBe("## now\n\nIt is turn one.");
    expect(projection.sections.map((section) => [section.name, section.placement, section.source])).toEqual([
      ["instructions", "system", { kind: "agent" }],
      ["review-rules", "system", { kind: "capability", name: "rules" }],
      ["now", "context", { kind: "capability", name: "rules" }],
    ]);
  });

  it("shows tools by their enabled option, receipts and state", () => {
    const receipt: ToolReceipt = {
      toolCallId: "c1",
      name: "create_report",
      input: {},
      result: { content: [], isError: false },
      ok: true,
      runId: "r1",
      turn: 1,
    };
    const agent = defineAgent("a", {
      model,
      state: { updates: 0 },
      tools: [
        tool("always"),
        tool("never", false),
        tool("early", (ctx) => ctx.turn <= 3),
        defineTool({
          name: "create_report",
          description: "Create",
          enabled: (ctx) => !ctx.toolCalls("create_report").some((call) => call.ok),
          execute: () => "",
        }),
        defineTool({
          name: "record_update",
          description: "Record",
          enabled: (ctx) => (ctx.state.updates as number) < 3,
          execute: () => "",
        }),
        hostTool("web_search", { enabled: false }),
      ],
    });
    expect(projectAgent(agent).tools).toEqual(["always", "early", "create_report", "record_update"]);
    expect(projectAgent(agent, { turn: 4, toolCalls: [receipt], state: { updates: 3 } }).tools).toEqual(["always"]);
  });

  it("hides a disabled capability's tools and sections together", () => {
    const capability = defineCapability({
      name: "extra",
      enabled: (ctx) => ctx.params.extra === true,
      tools: [tool("extra_tool")],
      instructions: [{ name: "extra", text: "Extra rules." }],
    });
    const agent = defineAgent("a", { model, instructions: "Base.", capabilities: [capability] });
    expect(projectAgent(agent).tools).toEqual([]);
    expect(projectAgent(agent).system).toBe("Base.");
    const shown = projectAgent(agent, { params: { extra: true } });
    expect(shown.tools).toEqual(["extra_tool"]);
    expect(shown.system).toContain("Extra rules.");
  });

  it("reports sections that need a resource only a Session acquires", () => {
    const file: BindingKind<string, string> = {
      name: "instructions-file",
      acquire: async () => ({ value: "", close() {} }),
    };
    const request = resource(file, "rules.md");
    const capability = defineCapability({
      name: "file",
      resources: [request],
      instructions: [{ name: "rules", text: (ctx) => ctx.resource(request) }],
    });
    const agent = defineAgent("a", { model, instructions: "Base.", capabilities: [capability] });
    const pending = projectAgent(agent);
    expect(pending.pendingResources).toEqual(["instructions-file"]);
    expect(pending.system).toBe("Base.");
    const supplied = projectAgent(agent, { resources: new Map([[request, "Be careful."]]) });
    expect(supplied.system).toBe("Base.\n\n## rules\n\nBe careful.");
    expect(supplied.pendingResources).toEqual([]);
  });

  it("shows a system-placed section that declares its resource as pending on it, with the kind's reference", () => {
    const page: BindingKind<{ readonly path: string }, string> = {
      name: "wiki-page",
      acquire: async () => ({ value: "", close() {} }),
      describe: (spec) => ({ path: spec.path }),
    };
    const rules = resource(page, { fromParams: (params) => ({ path: `/wiki/${String(params.team)}` }) });
    const news = resource(page, { path: "/wiki/news" });
    const capability = defineCapability({
      name: "wiki",
      resources: [rules, news],
      instructions: [
        { name: "rules", text: (ctx) => ctx.resource(rules), resource: rules },
        { name: "news", text: (ctx) => ctx.resource(news), resource: news, placement: "context" },
        { name: "after", text: "Cite pages." },
      ],
    });
    const agent = defineAgent("a", { model, instructions: "Base.", capabilities: [capability] });
    const pending = projectAgent(agent, { params: { team: "core" } });
    expect(pending.system).toBe("Base.\n\n## after\n\nCite pages.");
    expect(pending.context).toBe("");
    expect(
      pending.sections.map((section) => ("pending" in section ? [section.name, section.pending] : section.name)),
    ).toEqual(["instructions", ["rules", { resource: "wiki-page", path: "/wiki/core" }], "after"]);
    expect(pending.sections[1]).toMatchObject({ id: "capability:wiki:rules", placement: "system", order: 1 });
    expect(pending.pendingResources).toEqual(["wiki-page", "wiki-page"]);

    const supplied = projectAgent(agent, {
      resources: new Map([
        [rules, "Be kind."],
        [news, "Freeze on."],
      ]),
    });
    expect(supplied.system).toBe("Base.\n\n## rules\n\nBe kind.\n\n## after\n\nCite pages.");
    expect(supplied.context).toBe("## news\n\nFreeze on.");
    expect(supplied.sections.some((section) => "pending" in section)).toBe(false);
    expect(supplied.pendingResources).toEqual([]);

    const hidden = defineCapability({ ...capability, name: "hidden", enabled: false });
    expect(projectAgent(defineAgent("b", { model, capabilities: [hidden] }))).toMatchObject({
      sections: [],
      pendingResources: [],
    });
  });

  it("names a pending section's resource by its kind alone when the kind has no describe", () => {
    const request = resource({ name: "vault", acquire: async () => ({ value: "", close() {} }) }, {});
    const capability = defineCapability({
      name: "vault",
      resources: [request],
      instructions: [{ name: "secrets", text: (ctx) => ctx.resource(request), resource: request }],
    });
    const projection = projectAgent(defineAgent("a", { model, capabilities: [capability] }));
    expect(projection.sections).toEqual([expect.objectContaining({ name: "secrets", pending: { resource: "vault" } })]);
  });

  it("fails with a ProjectionError naming a section that throws", () => {
    const agent = defineAgent("a", {
      model,
      instructions: {
        broken: () => {
          throw new Error("boom");
        },
      },
    });
    expect(() => projectAgent(agent)).toThrow(ProjectionError);
    expect(() => projectAgent(agent)).toThrow(/agent:broken.*boom/);
  });
});

describe("buildProgram", () => {
  it("rejects a tool name, state key or capability declared twice, and two sandboxes", () => {
    const sandbox = { specifier: "s", open: async () => ({ sandbox: {}, close() {} }) };
    const dupTool = defineCapability({ name: "c", tools: [tool("same")] });
    const dupState = defineCapability({ name: "c", state: { count: 1 } });
    const withSandbox = defineCapability({ name: "c", sandbox });
    expect(() => buildProgram(defineAgent("a", { model, tools: [tool("same")], capabilities: [dupTool] }))).toThrow(
      /tool "same" is declared by the agent and by capability "c"/,
    );
    expect(() => buildProgram(defineAgent("a", { model, state: { count: 0 }, capabilities: [dupState] }))).toThrow(
      /state key "count"/,
    );
    expect(() => buildProgram(defineAgent("a", { model, capabilities: [dupTool, dupTool] }))).toThrow(/declared twice/);
    expect(() => buildProgram(defineAgent("a", { model, sandbox, capabilities: [withSandbox] }))).toThrow(
      DeclarationError,
    );
  });
});
