import {
  type Agent,
  type BindingKind,
  defineAgent,
  defineCapability,
  defineTool,
  type ModelBinding,
  resource,
} from "@castellan/harness";
import { type ScriptedModel, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, openSession, type SessionInspection } from "../src/index.js";
import { isDeepFrozen, latch, tempDirPerTest, writeAndWaitTool } from "./support/index.ts";

const temp = tempDirPerTest("castellan-inspection-");

const noSkillChanges = { skillsShown: [], skillsHidden: [], skillsActivated: [] };
const noChanges = {
  toolsShown: [],
  toolsHidden: [],
  sectionsAdded: [],
  sectionsRemoved: [],
  sectionsChanged: [],
  ...noSkillChanges,
};

function sectionsOf(projection: { sections: readonly { id: string; text: string }[] }): [string, string][] {
  return projection.sections.map((section) => [section.id, section.text]);
}

function toolsOf(projection: { tools: readonly { name: string }[] }): string[] {
  return projection.tools.map((tool) => tool.name);
}

const modelSecret = "sk-model-secret-4f9a2c";
const resourceSecret = "resource-secret-77d1e0";

/** A model binding carrying a credential field, as a provider binding would. */
function bindingWithSecret(model: ScriptedModel): ModelBinding & { apiKey: string } {
  return {
    specifier: model.specifier,
    contextWindow: model.contextWindow,
    apiKey: modelSecret,
    stream: (request, options) => model.stream(request, options),
  };
}

describe("session.inspect()", () => {
  it("is deeply frozen; initial is the projection after resource acquisition; no credential or resource value leaks", async () => {
    let acquired = 0;
    const account: BindingKind<string, { label: string; token: string }> = {
      name: "test-account",
      acquire: async (spec) => {
        acquired++;
        return { value: { label: `account ${spec}`, token: resourceSecret }, close: () => undefined };
      },
    };
    const accountResource = resource(account, "acme");
    const accounts = defineCapability({
      name: "accounts",
      resources: [accountResource],
      instructions: [{ name: "account", text: (ctx) => `Acting for ${ctx.resource(accountResource).label}.` }],
      tools: [
        defineTool({
          name: "whoami",
          description: "Names the account",
          readOnly: true,
          execute: (_input, ctx) => ctx.resource(accountResource).label,
        }),
      ],
    });
    const model = scriptedModel([{ toolCalls: [{ name: "whoami", input: {} }] }, { text: "done" }]);
    const agent = defineAgent("test.inspect-frozen", {
      model: bindingWithSecret(model),
      instructions: "Help the account.",
      capabilities: [accounts],
    });
    const session = await openSession({ agent });
    let beforeClose: SessionInspection;
    try {
      const opened = session.inspect();
      expect(isDeepFrozen(opened)).toBe(true);
      expect(opened.initial).toEqual({
        tools: [{ name: "whoami", source: { kind: "capability", name: "accounts" }, kind: "local", readOnly: true }],
        sections: [
          {
            id: "agent:instructions",
            name: "instructions",
            source: { kind: "agent" },
            placement: "system",
            order: 0,
            text: "Help the account.",
          },
          {
            id: "capability:accounts:account",
            name: "account",
            source: { kind: "capability", name: "accounts" },
            placement: "system",
            order: 1,
            text: "Acting for account acme.",
          },
        ],
        skills: [],
      });
      expect(opened.turns).toEqual([]);
      expect(opened.current).toMatchObject(opened.initial);
      // Inspecting neither acquires resources again nor calls the model.
      session.inspect();
      expect(acquired).toBe(1);
      expect(model.requests).toHaveLength(0);

      await session.run("go").result;
      beforeClose = session.inspect();
      expect(isDeepFrozen(beforeClose)).toBe(true);
      expect(() => {
        (beforeClose.turns as unknown[]).push({});
      }).toThrow(TypeError);
      for (const inspection of [opened, beforeClose]) {
        const text = JSON.stringify(inspection);
        expect(text).not.toContain(modelSecret);
        expect(text).not.toContain(resourceSecret);
      }
    } finally {
      await session.close();
    }
    // Readable after close, with the cached data.
    const afterClose = session.inspect();
    expect(afterClose).toEqual(beforeClose);
    expect(isDeepFrozen(afterClose)).toBe(true);
    expect(JSON.stringify(afterClose)).not.toContain(modelSecret);
    expect(JSON.stringify(afterClose)).not.toContain(resourceSecret);
  });

  it("records one turn per successful projection with its Run, turn and changes from the projection before", async () => {
    const search = defineTool({
      name: "search",
      description: "Search",
      readOnly: true,
      enabled: (ctx) => ctx.turn <= 1,
      execute: () => "found",
    });
    const answer = defineTool({
      name: "answer",
      description: "Answer",
      enabled: (ctx) => ctx.turn >= 2,
      execute: () => "",
    });
    const note = defineTool({ name: "note", description: "Note", execute: () => "" });
    const notes = defineCapability({
      name: "notes",
      enabled: (ctx) => ctx.turn >= 2,
      tools: [note],
      instructions: [
        { name: "rules", text: "Keep notes short." },
        { name: "turn", text: (ctx) => `This is turn ${ctx.turn}.`, placement: "context" },
      ],
    });
    const extras = defineCapability({ name: "extras", instructions: [{ name: "style", text: "Be brief." }] });
    const model = scriptedModel([
      { toolCalls: [{ name: "search", input: {} }] },
      { text: "first run" },
      { text: "second run" },
    ]);
    const agent = defineAgent("test.inspect-turns", {
      model,
      instructions: {
        identity: "Answer questions.",
        phase: (ctx) => (ctx.turn <= 1 ? "Search for evidence." : "Answer with the evidence."),
        extra: (ctx) => (ctx.turn === 1 ? "First turn only." : ""),
      },
      tools: [search, answer],
      capabilities: [notes, extras],
    });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      const first = session.run("one");
      await first.result;
      const second = session.run("two");
      await second.result;
      const inspection = session.inspect();

      expect(sectionsOf(inspection.initial)).toEqual([
        ["agent:identity", "Answer questions."],
        ["agent:phase", "Search for evidence."],
        ["capability:extras:style", "Be brief."],
      ]);
      expect(toolsOf(inspection.initial)).toEqual(["search"]);

      expect(inspection.turns.map((turn) => [turn.runId, turn.turn])).toEqual([
        [first.id, 1],
        [first.id, 2],
        [second.id, 1],
      ]);
      const [one, two, three] = inspection.turns;
      expect(sectionsOf(one!)).toEqual([
        ["agent:identity", "Answer questions."],
        ["agent:phase", "Search for evidence."],
        ["agent:extra", "First turn only."],
        ["capability:extras:style", "Be brief."],
      ]);
      expect(toolsOf(one!)).toEqual(["search"]);
      expect(one?.changes).toEqual({ ...noChanges, sectionsAdded: ["agent:extra"] });

      // The capability's enabled hides its sections and tools until turn 2.
      expect(sectionsOf(two!)).toEqual([
        ["agent:identity", "Answer questions."],
        ["agent:phase", "Answer with the evidence."],
        ["capability:notes:rules", "Keep notes short."],
        ["capability:notes:turn", "This is turn 2."],
        ["capability:extras:style", "Be brief."],
      ]);
      expect(toolsOf(two!)).toEqual(["answer", "note"]);
      expect(two?.changes).toEqual({
        toolsShown: ["answer", "note"],
        toolsHidden: ["search"],
        sectionsAdded: ["capability:notes:rules", "capability:notes:turn"],
        sectionsRemoved: ["agent:extra"],
        sectionsChanged: ["agent:phase"],
        ...noSkillChanges,
      });
      expect(model.requests[1]?.context).toBe("## turn\n\nThis is turn 2.");

      // A new Run's first turn is compared with the previous Run's last one.
      expect(three?.changes).toEqual({
        toolsShown: ["search"],
        toolsHidden: ["answer", "note"],
        sectionsAdded: ["agent:extra"],
        sectionsRemoved: ["capability:notes:rules", "capability:notes:turn"],
        sectionsChanged: ["agent:phase"],
        ...noSkillChanges,
      });
      expect(sectionsOf(three!).map(([id]) => id)).not.toContain("capability:notes:rules");

      expect(inspection.current).toEqual({
        tools: three?.tools,
        sections: three?.sections,
        skills: [],
        declaration: expect.anything(),
      });
      expect(inspection.droppedTurns).toBe(0);
      expect(two?.tools).toEqual([
        { name: "answer", source: { kind: "agent" }, kind: "local", readOnly: false },
        { name: "note", source: { kind: "capability", name: "notes" }, kind: "local", readOnly: false },
      ]);
    } finally {
      await session.close();
    }
  });

  it("describes the accepted declaration: capability names in order and the section placement table", async () => {
    const first = defineCapability({
      name: "first",
      instructions: [
        { name: "fixed", text: "Fixed text." },
        { name: "live", text: (ctx) => `turn ${ctx.turn}`, placement: "context" },
      ],
    });
    const second = defineCapability({ name: "second", enabled: false, instructions: [{ name: "hidden", text: "x" }] });
    const agent = defineAgent("test.inspect-declaration", {
      model: scriptedModel([]),
      instructions: { identity: "Identity.", phase: (ctx) => `phase ${ctx.turn}` },
      capabilities: [first, second],
    });
    const session = await openSession({ agent });
    try {
      const { declaration } = session.inspect().current;
      expect(declaration).toEqual({
        agentId: "test.inspect-declaration",
        capabilities: ["first", "second"],
        placements: [
          {
            id: "agent:identity",
            name: "identity",
            source: { kind: "agent" },
            placement: "system",
            lifetime: "session",
            order: 0,
          },
          {
            id: "agent:phase",
            name: "phase",
            source: { kind: "agent" },
            placement: "system",
            lifetime: "turn",
            order: 1,
          },
          {
            id: "capability:first:fixed",
            name: "fixed",
            source: { kind: "capability", name: "first" },
            placement: "system",
            lifetime: "session",
            order: 2,
          },
          {
            id: "capability:first:live",
            name: "live",
            source: { kind: "capability", name: "first" },
            placement: "context",
            lifetime: "turn",
            order: 3,
          },
          {
            id: "capability:second:hidden",
            name: "hidden",
            source: { kind: "capability", name: "second" },
            placement: "system",
            lifetime: "session",
            order: 4,
          },
        ],
      });
      // The table lists every declared section; the projection omits the hidden capability's.
      expect(sectionsOf(session.inspect().initial).map(([id]) => id)).toEqual([
        "agent:identity",
        "agent:phase",
        "capability:first:fixed",
        "capability:first:live",
      ]);
    } finally {
      await session.close();
    }
  });

  it("lists committed state writes only, and the queued host writes as pendingState", async () => {
    const waiting = latch();
    let duringBatch: SessionInspection | undefined;
    const write = defineTool({
      name: "write",
      description: "Writes count",
      execute: (_input, ctx) => {
        ctx.setState({ count: 1 });
        return "wrote";
      },
    });
    const writeAndWait = writeAndWaitTool({ count: 2 }, waiting);
    const model = scriptedModel([
      { toolCalls: [{ name: "write", input: {} }] },
      { text: "wrote" },
      { toolCalls: [{ name: "write_and_wait", input: {} }] },
      { text: "host write applied" },
    ]);
    const agent = defineAgent("test.inspect-state", { model, state: { count: 0 }, tools: [write, writeAndWait] });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      const committedRun = session.run("write");
      await committedRun.result;
      const committed = { source: "tool", runId: committedRun.id, turn: 1, changes: { count: 1 } };
      expect(session.inspect().stateWrites).toEqual([committed]);

      const controller = new AbortController();
      const aborted = session.run("write again", { signal: controller.signal });
      await waiting.promise;
      duringBatch = session.inspect();
      controller.abort();
      await expect(aborted.result).rejects.toMatchObject({ code: "run_aborted" });
      // The tentative write was never listed, and its discard leaves the list as it was.
      expect(duringBatch.stateWrites).toEqual([committed]);
      expect(duringBatch.state).toEqual({ count: 1 });
      expect(session.inspect().stateWrites).toEqual([committed]);
      expect(session.inspect().state).toEqual({ count: 1 });

      await session.setState("count", 5);
      await session.setState("count", 6);
      const queued = session.inspect();
      expect(queued.pendingState).toEqual([{ count: 5 }, { count: 6 }]);
      expect(queued.stateWrites).toEqual([committed]);
      expect(queued.state).toEqual({ count: 1 });

      const applying = session.run("apply");
      await applying.result;
      const applied = session.inspect();
      expect(applied.pendingState).toEqual([]);
      expect(applied.state).toEqual({ count: 6 });
      expect(applied.stateWrites).toEqual([
        committed,
        { source: "host", runId: applying.id, turn: 1, changes: { count: 6 } },
      ]);
    } finally {
      await session.close();
    }
  });

  it("starts a new projection history on reopen while restoring state", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const makeAgent = (model: ScriptedModel): Agent =>
      defineAgent("test.inspect-reopen", {
        model,
        state: { count: 0 },
        instructions: { progress: (ctx) => `count=${String(ctx.state.count)}` },
        tools: [
          defineTool({
            name: "bump",
            description: "Bumps count",
            execute: (_input, ctx) => {
              ctx.setState((state) => ({ count: (state.count as number) + 1 }));
              return "bumped";
            },
          }),
        ],
      });
    const firstModel = scriptedModel([{ toolCalls: [{ name: "bump", input: {} }] }, { text: "done" }]);
    const first = await openSession({ agent: makeAgent(firstModel), id: "reopen", store, permissions: "full-access" });
    let before: SessionInspection;
    try {
      await first.run("go").result;
      await first.setState("count", 10);
      before = first.inspect();
      expect(before.turns).toHaveLength(2);
    } finally {
      await first.close();
    }

    const secondModel = scriptedModel([{ text: "again" }]);
    const second = await openSession({
      agent: makeAgent(secondModel),
      id: "reopen",
      store,
      permissions: "full-access",
    });
    try {
      const reopened = second.inspect();
      expect(reopened.projectionScope).toBe("current-open");
      expect(reopened.turns).toEqual([]);
      expect(reopened.droppedTurns).toBe(0);
      expect(reopened.state).toEqual(before.state);
      expect(reopened.state).toEqual({ count: 1 });
      expect(reopened.stateWrites).toEqual(before.stateWrites);
      expect(reopened.pendingState).toEqual([{ count: 10 }]);
      expect(sectionsOf(reopened.initial)).toEqual([["agent:progress", "count=1"]]);

      const run = second.run("again");
      await run.result;
      const after = second.inspect();
      expect(after.turns.map((turn) => [turn.runId, turn.turn])).toEqual([[run.id, 1]]);
      expect(sectionsOf(after.turns[0]!)).toEqual([["agent:progress", "count=10"]]);
      expect(after.turns[0]?.changes).toEqual({ ...noChanges, sectionsChanged: ["agent:progress"] });
    } finally {
      await second.close();
    }
  });

  it("adds no turn entry for a failed projection", async () => {
    const model = scriptedModel([{ toolCalls: [{ name: "noop", input: {} }] }, { text: "never asked" }]);
    const agent = defineAgent("test.inspect-failed-projection", {
      model,
      instructions: {
        identity: "Identity.",
        fragile: (ctx) => {
          if (ctx.turn === 2) throw new Error("section broke");
          return `turn ${ctx.turn}`;
        },
      },
      tools: [defineTool({ name: "noop", description: "Does nothing", readOnly: true, execute: () => "ok" })],
    });
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      const run = session.run("go");
      await expect(run.result).rejects.toMatchObject({ code: "projection_failed" });
      expect(model.requests).toHaveLength(1);
      const inspection = session.inspect();
      expect(inspection.turns.map((turn) => [turn.runId, turn.turn])).toEqual([[run.id, 1]]);
      expect(inspection.current).toMatchObject({ sections: inspection.turns[0]?.sections });
      expect(sectionsOf(inspection.current)).toEqual([
        ["agent:identity", "Identity."],
        ["agent:fragile", "turn 1"],
      ]);
    } finally {
      await session.close();
    }
  });
});
