import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, createNodeRunner, type NodeRunnerPlugin, openSession } from "../src/index.js";

const loop = defineTool({ name: "loop", description: "Loop", readOnly: true, execute: () => "again" });
const calls = (count: number) => Array.from({ length: count }, () => ({ toolCalls: [{ name: "loop", input: {} }] }));

describe("openSession's Runner options", () => {
  it("passes limits to the private Runner", async () => {
    const session = await openSession({
      agent: defineAgent("test.limits", { model: scriptedModel(calls(3)), tools: [loop] }),
      limits: { maxTurns: 2 },
    });
    try {
      await expect(session.run("go").result).rejects.toMatchObject({ code: "max_turns" });
    } finally {
      await session.close();
    }
  });

  it("passes the usage budget", async () => {
    const steps = calls(3).map((step) => ({ ...step, usage: { inputTokens: 10, outputTokens: 5 } }));
    const session = await openSession({
      agent: defineAgent("test.budget", { model: scriptedModel(steps), tools: [loop] }),
      budget: { maxOutputTokens: 10 },
    });
    try {
      await expect(session.run("go").result).rejects.toMatchObject({ code: "budget_exceeded" });
      expect(session.usage().total.outputTokens).toBe(10);
    } finally {
      await session.close();
    }
  });

  it("passes the context budget", async () => {
    const long = "x".repeat(4_000);
    const model = scriptedModel([{ text: long }, { text: "Summary." }, { text: "short" }], { contextWindow: 100_000 });
    const session = await openSession({
      agent: defineAgent("test.context", { model }),
      contextBudget: { contextWindow: 1_000, reserveOutputTokens: 0 },
    });
    try {
      await session.run("first").result;
      const second = session.run("second");
      const kinds: string[] = [];
      for await (const event of second) kinds.push(event.kind);
      expect(kinds).toContain("compaction-end");
      expect(model.requests[1]?.tools).toEqual([]);
      model.assertComplete();
    } finally {
      await session.close();
    }
  });

  it("applies plugins after store and approval, and a permission hook leaves ask-on-write in place", async () => {
    const write = defineTool({ name: "write", description: "Write", execute: () => "written" });
    const secret = defineTool({ name: "secret", description: "Secret", execute: () => "leaked" });
    const read = defineTool({ name: "read", description: "Read", readOnly: true, execute: () => "read" });
    const asked: string[] = [];
    const applied: string[] = [];
    const approval: NodeRunnerPlugin = {
      name: "test.approval",
      apply: (host) => {
        applied.push("approval");
        host.registerApproval({
          request: async (request) => {
            asked.push(request.toolName);
            return { decision: "deny", reason: "not now" };
          },
        });
      },
    };
    const hook: NodeRunnerPlugin = {
      name: "test.hook",
      apply: (host) => {
        applied.push("hook");
        host.hooks.toolPermission((request) => (request.toolName === "secret" ? "deny" : undefined));
      },
    };
    const store = createMemorySessionStore();
    const session = await openSession({
      agent: defineAgent("test.plugins", {
        model: scriptedModel([
          {
            toolCalls: [
              { name: "read", input: {} },
              { name: "write", input: {} },
              { name: "secret", input: {} },
            ],
          },
          { text: "done" },
        ]),
        tools: [read, write, secret],
      }),
      store,
      approval,
      plugins: [hook],
      id: "with-plugins",
    });
    try {
      const events = [];
      for await (const event of session.run("go")) if (event.kind === "tool-end") events.push(event);
      // The hook denied secret; the preset (still ask-on-write) ran read and asked about write.
      expect(events.map((event) => [event.toolName, event.result.isError])).toEqual([
        ["read", false],
        ["write", true],
        ["secret", true],
      ]);
      expect(asked).toEqual(["write"]);
      expect(applied).toEqual(["approval", "hook"]);
    } finally {
      await session.close();
    }
    expect((await store.open("with-plugins")).records.length).toBeGreaterThan(0);
  });

  it("refuses a plugin that registers a second store beside the store option", async () => {
    const second: NodeRunnerPlugin = {
      name: "test.second-store",
      apply: (host) => host.registerSessionStore(createMemorySessionStore()),
    };
    await expect(
      openSession({
        agent: defineAgent("test.two-stores", { model: scriptedModel([]) }),
        store: createMemorySessionStore(),
        plugins: [second],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid", message: expect.stringMatching(/already registered/) });
  });

  it("gives createNodeRunner the same store and approval options", async () => {
    const store = createMemorySessionStore();
    const write = defineTool({ name: "write", description: "Write", execute: () => "written" });
    const asked: string[] = [];
    const runner = await createNodeRunner({
      agent: defineAgent("test.runner-options", {
        model: scriptedModel([{ toolCalls: [{ name: "write", input: {} }] }, { text: "done" }]),
        tools: [write],
      }),
      store,
      approval: {
        name: "test.approval",
        apply: (host) =>
          host.registerApproval({
            request: async (request) => {
              asked.push(request.toolName);
              return { decision: "allow" };
            },
          }),
      },
    });
    try {
      const session = await runner.createSession({ id: "saved" });
      await session.run("go").result;
      await session.close();
      expect(asked).toEqual(["write"]);
      expect((await store.open("saved")).records.length).toBeGreaterThan(0);
    } finally {
      await runner.close();
    }
    await expect(
      createNodeRunner({ agent: defineAgent("test.bad", { model: scriptedModel([]) }), store: {} as never }),
    ).rejects.toMatchObject({ code: "invalid_options" });
  });
});
