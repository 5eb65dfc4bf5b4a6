import {
  defineAgent,
  defineTool,
  hostTool,
  type JsonValue,
  type ModelRequest,
  type ToolContext,
  type ToolSpec,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  BeforeModelHookError,
  createNodeRunner,
  type NodeRunnerHost,
  type NodeRunnerPlugin,
  openSession,
  PluginError,
  ToolBindingError,
  type TurnInfo,
} from "../src/index.js";
import type { SessionStore } from "../src/kernel/store/types.js";
import { drain, macrotasks, plugin, textOf, toolMessages } from "./support/index.ts";

/** A store stand-in: registration only checks the shape; these tests never open a Session with it. */
function fakeStore(): SessionStore {
  return {
    open: async () => {
      throw new Error("not used");
    },
  } as unknown as SessionStore;
}

const lookupTool = defineTool({
  name: "lookup",
  description: "Look a key up",
  inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  readOnly: true,
  execute: ({ key }: { key: string }, ctx: ToolContext) => `value of ${key} (turn ${ctx.turn})`,
});

describe("plugin application", () => {
  it("applies plugins once each, in order, awaiting each apply before the next", async () => {
    const log: string[] = [];
    const agent = defineAgent("test.order", { model: scriptedModel([]) });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("a", async () => {
          log.push("a:start");
          await macrotasks();
          log.push("a:end");
        }),
        plugin("b", () => {
          log.push("b");
        }),
        plugin("c", async () => {
          log.push("c:start");
          await macrotasks();
          log.push("c:end");
        }),
      ],
    });
    expect(log).toEqual(["a:start", "a:end", "b", "c:start", "c:end"]);
    await runner.close();
    expect(log).toHaveLength(5);
  });

  it("closes registration once createNodeRunner has resolved", async () => {
    let saved: NodeRunnerHost | undefined;
    const agent = defineAgent("test.closed", { model: scriptedModel([]) });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("late", (host) => {
          saved = host;
        }),
      ],
    });
    try {
      const host = saved as NodeRunnerHost;
      const attempts: Array<() => void> = [
        () => host.registerModel("app/late", scriptedModel([])),
        () => host.registerModelResolver({ resolve: () => scriptedModel([]) }),
        () => host.registerTool(lookupTool),
        () => host.registerHostedTool({ name: "search", hosted: { kind: "web-search" } }),
        () => host.registerSessionStore(fakeStore()),
        () => host.registerApproval({ request: async () => ({ decision: "allow" }) }),
        () => host.registerSandboxResolver({ open: async () => ({}) as never }),
        () => host.hooks.toolPermission(() => "allow"),
        () => host.hooks.beforeModel(() => undefined),
        () => host.hooks.turnStart(() => undefined),
        () => host.hooks.stateChanged(() => undefined),
      ];
      for (const attempt of attempts) {
        expect(attempt).toThrow(PluginError);
        try {
          attempt();
        } catch (error) {
          expect(error).toMatchObject({ code: "plugin_invalid" });
        }
      }
    } finally {
      await runner.close();
    }
  });

  it("a late registration has no effect on Sessions", async () => {
    let saved: NodeRunnerHost | undefined;
    const turnStarts: number[] = [];
    const agent = defineAgent("test.closed", { model: scriptedModel([{ text: "ok" }]) });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("late", (host) => {
          saved = host;
        }),
      ],
    });
    try {
      expect(() => saved?.hooks.turnStart((info) => void turnStarts.push(info.turn))).toThrow(PluginError);
      const session = await runner.createSession();
      await session.run("hi").result;
      expect(turnStarts).toEqual([]);
    } finally {
      await runner.close();
    }
  });

  it("rejects a plugin given twice and a malformed plugin", async () => {
    const agent = defineAgent("test.malformed", { model: scriptedModel([]) });
    const same = plugin("same", () => undefined);
    await expect(createNodeRunner({ agent, plugins: [same, same] })).rejects.toMatchObject({
      code: "plugin_invalid",
    });
    await expect(
      createNodeRunner({ agent, plugins: [{ name: "no-apply" } as unknown as NodeRunnerPlugin] }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
  });

  it("does not apply any plugin when the signal is already aborted", async () => {
    let applied = 0;
    const agent = defineAgent("test.aborted", { model: scriptedModel([]) });
    await expect(
      createNodeRunner({
        agent,
        signal: AbortSignal.abort(),
        plugins: [plugin("p", () => void applied++)],
      }),
    ).rejects.toMatchObject({ code: "aborted" });
    await expect(
      openSession({
        agent,
        signal: AbortSignal.abort(),
        approval: plugin("p", () => void applied++),
      }),
    ).rejects.toMatchObject({ code: "aborted" });
    expect(applied).toBe(0);
  });
});

describe("one store and one approval adapter per Runner", () => {
  it("rejects two stores through createNodeRunner, closing what was applied", async () => {
    const closed: string[] = [];
    const agent = defineAgent("test.stores", { model: scriptedModel([]) });
    const failure = await createNodeRunner({
      agent,
      plugins: [
        plugin(
          "store-a",
          (host) => host.registerSessionStore(fakeStore()),
          () => void closed.push("store-a"),
        ),
        plugin(
          "store-b",
          (host) => host.registerSessionStore(fakeStore()),
          () => void closed.push("store-b"),
        ),
      ],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PluginError);
    expect(failure).toMatchObject({ code: "plugin_invalid" });
    expect((failure as Error).message).toContain("store-b");
    // Closed in reverse order, including the plugin whose apply failed.
    expect(closed).toEqual(["store-b", "store-a"]);
  });

  it("rejects two approval adapters through createNodeRunner", async () => {
    const agent = defineAgent("test.approvals", { model: scriptedModel([]) });
    const adapter = { request: async () => ({ decision: "allow" as const }) };
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("approval-a", (host) => host.registerApproval(adapter)),
          plugin("approval-b", (host) => host.registerApproval(adapter)),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("approval-twice", (host) => {
            host.registerApproval(adapter);
            host.registerApproval(adapter);
          }),
        ],
      }),
    ).rejects.toBeInstanceOf(PluginError);
  });

  it("rejects two sandbox resolvers", async () => {
    const agent = defineAgent("test.sandboxes", { model: scriptedModel([]) });
    const resolver = { open: async () => ({}) as never };
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("sandbox-a", (host) => host.registerSandboxResolver(resolver)),
          plugin("sandbox-b", (host) => host.registerSandboxResolver(resolver)),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
  });

  it("openSession: the store option and an approval plugin registering a store conflict", async () => {
    const closed: string[] = [];
    const agent = defineAgent("test.open-stores", { model: scriptedModel([]) });
    const failure = await openSession({
      agent,
      store: fakeStore(),
      approval: plugin(
        "sneaky-approval",
        (host) => {
          host.registerApproval({ request: async () => ({ decision: "allow" }) });
          host.registerSessionStore(fakeStore());
        },
        () => void closed.push("sneaky-approval"),
      ),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PluginError);
    expect(failure).toMatchObject({ code: "plugin_invalid" });
    expect(closed).toEqual(["sneaky-approval"]);
  });

  it("openSession: an approval plugin registering two adapters is rejected", async () => {
    const agent = defineAgent("test.open-approvals", { model: scriptedModel([]) });
    await expect(
      openSession({
        agent,
        approval: plugin("double-approval", (host) => {
          host.registerApproval({ request: async () => ({ decision: "allow" }) });
          host.registerApproval({ request: async () => ({ decision: "deny" }) });
        }),
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
  });

  it("openSession closes its approval plugin when the Session closes", async () => {
    const closed: string[] = [];
    const agent = defineAgent("test.open-close", { model: scriptedModel([{ text: "hi" }]) });
    const session = await openSession({
      agent,
      approval: plugin(
        "approval",
        (host) => host.registerApproval({ request: async () => ({ decision: "allow" }) }),
        () => void closed.push("approval"),
      ),
    });
    await session.run("hi").result;
    expect(closed).toEqual([]);
    await session.close();
    await session.close();
    expect(closed).toEqual(["approval"]);
  });
});

describe("plugin cleanup", () => {
  it("closes plugins in reverse order on runner.close(), once", async () => {
    const closed: string[] = [];
    const agent = defineAgent("test.close", { model: scriptedModel([{ text: "hi" }]) });
    const runner = await createNodeRunner({
      agent,
      plugins: ["a", "b", "c"].map((name) =>
        plugin(
          name,
          () => undefined,
          async () => {
            await macrotasks();
            closed.push(name);
          },
        ),
      ),
    });
    const session = await runner.createSession();
    await session.run("hi").result;
    expect(closed).toEqual([]);
    await Promise.all([runner.close(), runner.close()]);
    await runner.close();
    expect(closed).toEqual(["c", "b", "a"]);
    // Closing the Runner closed its Session.
    expect(session.signal.aborted).toBe(true);
    await expect(runner.createSession()).rejects.toMatchObject({ code: "session_closed" });
  });

  it("closes every plugin even when one fails to close, then reports the failure", async () => {
    const closed: string[] = [];
    const agent = defineAgent("test.close-fails", { model: scriptedModel([]) });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin(
          "a",
          () => undefined,
          () => void closed.push("a"),
        ),
        plugin(
          "b",
          () => undefined,
          () => {
            throw new Error("b cannot close");
          },
        ),
        plugin(
          "c",
          () => undefined,
          () => void closed.push("c"),
        ),
      ],
    });
    await expect(runner.close()).rejects.toMatchObject({ code: "plugin_invalid" });
    expect(closed).toEqual(["c", "a"]);
  });

  it("a plugin whose apply throws: earlier plugins closed, later ones not applied, error has code and cause", async () => {
    const log: string[] = [];
    const cause = new Error("config file missing");
    const agent = defineAgent("test.apply-throws", { model: scriptedModel([]) });
    const failure = await createNodeRunner({
      agent,
      plugins: [
        plugin(
          "first",
          () => void log.push("apply first"),
          () => void log.push("close first"),
        ),
        plugin(
          "second",
          () => void log.push("apply second"),
          () => void log.push("close second"),
        ),
        plugin("broken", () => {
          log.push("apply broken");
          throw cause;
        }),
        plugin(
          "after",
          () => void log.push("apply after"),
          () => void log.push("close after"),
        ),
      ],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PluginError);
    expect(failure).toMatchObject({ code: "plugin_invalid" });
    expect((failure as Error).cause).toBe(cause);
    expect((failure as Error).message).toContain("broken");
    expect((failure as Error).message).toContain("config file missing");
    expect(log).toEqual(["apply first", "apply second", "apply broken", "close second", "close first"]);
  });

  it("an async apply that rejects is handled the same way", async () => {
    const closed: string[] = [];
    const agent = defineAgent("test.apply-rejects", { model: scriptedModel([]) });
    const failure = await createNodeRunner({
      agent,
      plugins: [
        plugin(
          "first",
          () => undefined,
          () => void closed.push("first"),
        ),
        plugin("broken", async () => {
          await macrotasks();
          throw new TypeError("bad option");
        }),
      ],
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "plugin_invalid" });
    expect((failure as Error).cause).toBeInstanceOf(TypeError);
    expect(closed).toEqual(["first"]);
  });
});

describe("host tools", () => {
  it('resolves hostTool("lookup") from host.registerTool and runs it with the tool context', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: "lookup", input: { key: "colour" } }] }, { text: "done" }]);
    const agent = defineAgent("test.host-tool", { model, tools: [hostTool("lookup")] });
    const runner = await createNodeRunner({
      agent,
      // A registered read-only tool is allowed even by the read-only preset.
      permissions: "read-only",
      plugins: [plugin("catalog", (host) => host.registerTool(lookupTool))],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("look it up"));
      expect(error).toBeUndefined();
      expect(model.requests[0]?.tools).toEqual([
        { name: "lookup", description: "Look a key up", inputSchema: lookupTool.inputSchema },
      ]);
      expect(events.find((event) => event.kind === "tool-permission")).toMatchObject({
        decision: "allow",
        decidedBy: "preset",
      });
      const result = toolMessages(model.requests[1]?.messages ?? [])[0];
      expect(result?.isError).toBe(false);
      expect(textOf(result)).toBe("value of colour (turn 1)");
    } finally {
      await runner.close();
    }
  });

  it("fails opening with tool_not_found when no plugin registers the host tool", async () => {
    const model = scriptedModel([]);
    const agent = defineAgent("test.missing-tool", { model, tools: [hostTool("lookup")] });
    const viaOpen = await openSession({ agent }).catch((error: unknown) => error);
    expect(viaOpen).toBeInstanceOf(ToolBindingError);
    expect(viaOpen).toMatchObject({ code: "tool_not_found" });
    expect((viaOpen as Error).message).toContain("lookup");

    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("other", (host) => host.registerTool({ ...lookupTool, name: "other" }))],
    });
    try {
      await expect(runner.createSession()).rejects.toMatchObject({ code: "tool_not_found" });
    } finally {
      await runner.close();
    }
    expect(model.requests).toHaveLength(0);
  });

  it("rejects a name declared directly and registered by a host plugin (tool_ambiguous)", async () => {
    const agent = defineAgent("test.ambiguous-tool", { model: scriptedModel([]), tools: [lookupTool] });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("catalog", (host) => host.registerTool(lookupTool))],
    });
    try {
      const failure = await runner.createSession().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ToolBindingError);
      expect(failure).toMatchObject({ code: "tool_ambiguous" });
    } finally {
      await runner.close();
    }
  });

  it("rejects a name declared directly and registered as a hosted tool (tool_ambiguous)", async () => {
    const agent = defineAgent("test.ambiguous-hosted", { model: scriptedModel([]), tools: [lookupTool] });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("hosted", (host) => host.registerHostedTool({ name: "lookup", hosted: { kind: "x" } }))],
    });
    try {
      await expect(runner.createSession()).rejects.toMatchObject({ code: "tool_ambiguous" });
    } finally {
      await runner.close();
    }
  });

  it("rejects a tool name registered twice, as tools or hosted tools", async () => {
    const agent = defineAgent("test.twice", { model: scriptedModel([]) });
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("a", (host) => host.registerTool(lookupTool)),
          plugin("b", (host) => host.registerTool(lookupTool)),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("a", (host) => host.registerTool(lookupTool)),
          plugin("b", (host) => host.registerHostedTool({ name: "lookup", hosted: { kind: "x" } })),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
  });

  it("sends a registered hosted tool in request.hostedTools, never in request.tools", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "web_search", input: { q: "x" } }] },
      { text: "answered from search" },
    ]);
    const agent = defineAgent("test.hosted", { model, tools: [hostTool("web_search"), hostTool("lookup")] });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("hosted", (host) => {
          host.registerHostedTool({ name: "web_search", hosted: { kind: "web-search", maxUses: 3 } });
          host.registerTool(lookupTool);
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const { error } = await drain(session.run("search"));
      expect(error).toBeUndefined();
      const request = model.requests[0] as ModelRequest;
      expect(request.hostedTools).toEqual([{ name: "web_search", hosted: { kind: "web-search", maxUses: 3 } }]);
      expect(request.tools.map((tool) => tool.name)).toEqual(["lookup"]);
      // A hosted tool is the provider's to run; a client-side call to it gets an error result.
      const result = toolMessages(model.requests[1]?.messages ?? [])[0];
      expect(result?.isError).toBe(true);
      expect(textOf(result)).toContain("web_search");
    } finally {
      await runner.close();
    }
  });

  it("hides a hostTool reference declared with enabled: false", async () => {
    const model = scriptedModel([{ text: "ok" }]);
    const agent = defineAgent("test.hidden-host", {
      model,
      tools: [hostTool("lookup", { enabled: false }), hostTool("web_search", { enabled: false })],
    });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("catalog", (host) => {
          host.registerTool(lookupTool);
          host.registerHostedTool({ name: "web_search", hosted: { kind: "web-search" } });
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      await session.run("hi").result;
      expect(model.requests[0]?.tools).toEqual([]);
      expect(model.requests[0]?.hostedTools).toEqual([]);
    } finally {
      await runner.close();
    }
  });
});

describe("beforeModel hooks", () => {
  it("may rewrite messages: the model sees the rewrite, the history keeps the original", async () => {
    const model = scriptedModel([{ text: "first" }, { text: "second" }]);
    const agent = defineAgent("test.before-model", { model });
    const infos: TurnInfo[] = [];
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("redact", (host) =>
          host.hooks.beforeModel((request, info) => {
            infos.push(info);
            return {
              ...request,
              messages: request.messages.map((message) =>
                message.role === "user"
                  ? { ...message, content: [{ type: "text" as const, text: "[redacted]" }] }
                  : message,
              ),
            };
          }),
        ),
        plugin("annotate", (host) =>
          host.hooks.beforeModel((request) => ({
            ...request,
            messages: [...request.messages, { role: "user", content: [{ type: "text", text: "note" }] }],
          })),
        ),
        plugin("pass", (host) => host.hooks.beforeModel(() => undefined)),
      ],
    });
    try {
      const session = await runner.createSession({ id: "bm" });
      const first = session.run("my password is hunter2");
      expect((await drain(first)).error).toBeUndefined();
      // Hooks chain in registration order: the second sees the first's rewrite.
      expect(model.requests[0]?.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "[redacted]" }] },
        { role: "user", content: [{ type: "text", text: "note" }] },
      ]);
      expect(infos[0]).toEqual({
        agent: { id: "test.before-model" },
        sessionId: "bm",
        runId: first.id,
        turn: 1,
        signal: expect.any(AbortSignal),
        reportHookFailure: expect.any(Function),
      });

      await session.run("second question").result;
      // The history was not rewritten: the next projection starts from the original messages.
      const second = model.requests[1]?.messages ?? [];
      expect(second.map((message) => message.role)).toEqual(["user", "assistant", "user", "user"]);
      expect(second[1]).toMatchObject({ role: "assistant", content: [{ type: "text", text: "first" }] });
      expect(second.filter((message) => message.role === "user")).toHaveLength(3);
    } finally {
      await runner.close();
    }
  });

  const toolChanges: Array<[string, (request: ModelRequest) => ModelRequest | undefined]> = [
    ["removing a tool", (request) => ({ ...request, tools: [] })],
    [
      "changing a description",
      (request) => ({
        ...request,
        tools: request.tools.map((tool) => ({ ...tool, description: "something else" })),
      }),
    ],
    [
      "adding a tool",
      (request) => ({
        ...request,
        tools: [...request.tools, { name: "extra", description: "x", inputSchema: { type: "object" } }],
      }),
    ],
    [
      "adding a hosted tool",
      (request) => ({ ...request, hostedTools: [{ name: "web_search", hosted: { kind: "web-search" } }] }),
    ],
    ["dropping the tool list", (request) => ({ ...request, tools: undefined as unknown as ToolSpec[] })],
    [
      "mutating the tool list in place and returning nothing",
      (request) => {
        (request.tools as ToolSpec[]).push({ name: "extra", description: "x", inputSchema: { type: "object" } });
        return undefined;
      },
    ],
    [
      "mutating the tool list in place and returning the request",
      (request) => {
        (request.tools as ToolSpec[]).length = 0;
        return request;
      },
    ],
  ];

  it.each(toolChanges)("fails the Run with hook_invalid when %s", async (_name, change) => {
    const model = scriptedModel([{ text: "must not be asked" }]);
    const agent = defineAgent("test.before-model-tools", { model, tools: [lookupTool] });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("tamper", (host) => host.hooks.beforeModel(change))],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("hi"));
      expect(error).toBeInstanceOf(BeforeModelHookError);
      expect(error).toMatchObject({ code: "hook_invalid" });
      expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed", error: { code: "hook_invalid" } });
      expect(model.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });
});

describe("turnStart hooks", () => {
  it("are called once per turn, in plugin order, with the turn number", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "lookup", input: { key: "a" } }] },
      { toolCalls: [{ name: "lookup", input: { key: "b" } }] },
      { text: "done" },
      { text: "second run" },
    ]);
    const agent = defineAgent("test.turn-start", { model, tools: [lookupTool] });
    const calls: Array<{ plugin: string; info: TurnInfo }> = [];
    const order: string[] = [];
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("one", (host) =>
          host.hooks.turnStart((info) => {
            calls.push({ plugin: "one", info });
            order.push(`one:${info.turn}`);
          }),
        ),
        plugin("two", (host) => host.hooks.turnStart((info) => void order.push(`two:${info.turn}`))),
      ],
    });
    try {
      const session = await runner.createSession({ id: "ts" });
      const first = session.run("go");
      const { events } = await drain(first);
      expect(calls.map((call) => call.info)).toEqual(
        [1, 2, 3].map((turn) => ({
          agent: { id: "test.turn-start" },
          sessionId: "ts",
          runId: first.id,
          turn,
          signal: expect.any(AbortSignal),
          reportHookFailure: expect.any(Function),
        })),
      );
      expect(order).toEqual(["one:1", "two:1", "one:2", "two:2", "one:3", "two:3"]);
      // Each hook runs before its turn starts.
      expect(events.filter((event) => event.kind === "turn-start").map((event) => event.turn)).toEqual([1, 2, 3]);

      const second = session.run("again");
      await drain(second);
      expect(calls.slice(3).map((call) => [call.info.runId, call.info.turn])).toEqual([[second.id, 1]]);
    } finally {
      await runner.close();
    }
  });

  it("a turnStart hook that throws fails the Run before the model is called", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const agent = defineAgent("test.turn-start-throws", { model });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("throws", (host) =>
          host.hooks.turnStart(() => {
            throw new Error("quota exceeded");
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("hi"));
      expect((error as Error).message).toContain("quota exceeded");
      expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed" });
      expect(model.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });
});

describe("toolPermission hooks registered by plugins", () => {
  it("see calls to host-registered tools like declared ones", async () => {
    const seen: Array<{ name: string; input: JsonValue; readOnly: boolean }> = [];
    const model = scriptedModel([{ toolCalls: [{ name: "lookup", input: { key: "k" } }] }, { text: "ok" }]);
    const agent = defineAgent("test.hook-host-tool", { model, tools: [hostTool("lookup")] });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("catalog", (host) => {
          host.registerTool(lookupTool);
          host.hooks.toolPermission((request) => {
            seen.push({ name: request.toolName, input: request.input, readOnly: request.readOnly });
            return undefined;
          });
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      await session.run("go").result;
      expect(seen).toEqual([{ name: "lookup", input: { key: "k" }, readOnly: true }]);
    } finally {
      await runner.close();
    }
  });
});

describe("TurnInfo given to hooks", () => {
  it("carries the Run's signal, and reportHookFailure emits hook-failed while the Run goes on", async () => {
    const signals: AbortSignal[] = [];
    const agent = defineAgent("test.report", { model: scriptedModel([{ text: "fine" }]) });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("reporter", (host) =>
          host.hooks.beforeModel((_request, info) => {
            signals.push(info.signal);
            info.reportHookFailure("reporter.record", new Error("the host callback rejected"));
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("hello"));
      expect(error).toBeUndefined();
      expect(events.find((event) => event.kind === "hook-failed")).toMatchObject({
        hook: "reporter.record",
        error: { code: "hook_failed", message: "the host callback rejected" },
      });
      expect(signals[0]).toBeInstanceOf(AbortSignal);
      expect(signals[0]?.aborted).toBe(false);
    } finally {
      await runner.close();
    }
  });
});
