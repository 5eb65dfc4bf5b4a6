// Session lifecycle hooks: the plugins' sessionStart and sessionEnd, and a capability's own
// hooks (sessionStart, turnStart, beforeModel, sessionEnd), which run only for Sessions of an
// agent that declares it, after the plugins' hooks of the same kind; and the Session facts a
// contributed sandbox's open is given.
import {
  type BindingKind,
  DeclarationError,
  defineAgent,
  defineCapability,
  defineTool,
  resource,
  type SandboxContribution,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, createNodeRunner, type NodeRunnerPlugin, SessionHookError } from "../src/index.js";
import { plugin, rejection } from "./support/index.ts";

const note = defineTool({ name: "note", description: "Keep a note", execute: () => "noted" });

/** A capability whose hooks push `name:kind` to `log`, with a resource whose release is logged too. */
function loggingCapability(name: string, log: string[], fail?: "sessionStart" | "sessionEnd") {
  const kind: BindingKind<string, string> = {
    name: `${name}-resource`,
    acquire: async (spec) => {
      log.push(`${name}:acquire`);
      return { value: spec, close: () => void log.push(`${name}:release`) };
    },
  };
  return defineCapability({
    name,
    resources: [resource(kind, name)],
    hooks: {
      sessionStart: (info) => {
        log.push(`${name}:sessionStart:${info.sessionId}`);
        if (fail === "sessionStart") throw new Error(`${name} cannot start`);
      },
      turnStart: (info) => void log.push(`${name}:turnStart:${info.turn}`),
      beforeModel: (request) => {
        log.push(`${name}:beforeModel`);
        return { ...request, context: `${request.context}[${name}]` };
      },
      sessionEnd: (info) => {
        log.push(`${name}:sessionEnd:${info.sessionId}`);
        if (fail === "sessionEnd") throw new Error(`${name} cannot end`);
      },
    },
  });
}

/** A plugin whose lifecycle hooks push `plugin:kind` to `log`. */
function loggingPlugin(log: string[]): NodeRunnerPlugin {
  return plugin("test.lifecycle", (host) => {
    host.hooks.sessionStart((info) => void log.push(`plugin:sessionStart:${info.sessionId}`));
    host.hooks.turnStart(() => void log.push("plugin:turnStart"));
    host.hooks.beforeModel(() => void log.push("plugin:beforeModel"));
    host.hooks.sessionEnd((info) => void log.push(`plugin:sessionEnd:${info.sessionId}:${info.agent.id}`));
  });
}

describe("lifecycle hooks", () => {
  it("run plugins' hooks first, then the capabilities' in declaration order, around the Session's life", async () => {
    const log: string[] = [];
    const model = scriptedModel([{ text: "hi" }]);
    const agent = defineAgent("test.lifecycle", {
      model,
      capabilities: [loggingCapability("first", log), loggingCapability("second", log)],
    });
    const runner = await createNodeRunner({ agent, plugins: [loggingPlugin(log)] });
    try {
      const session = await runner.createSession({ id: "s1" });
      await session.run("hello").result;
      log.push("run settled");
      await session.close();
    } finally {
      await runner.close();
    }
    expect(log).toEqual([
      "first:acquire",
      "second:acquire",
      "plugin:sessionStart:s1",
      "first:sessionStart:s1",
      "second:sessionStart:s1",
      "plugin:turnStart",
      "first:turnStart:1",
      "second:turnStart:1",
      "plugin:beforeModel",
      "first:beforeModel",
      "second:beforeModel",
      "run settled",
      "plugin:sessionEnd:s1:test.lifecycle",
      "first:sessionEnd:s1",
      "second:sessionEnd:s1",
      // Resources are released after every sessionEnd hook, in reverse.
      "second:release",
      "first:release",
    ]);
    expect(model.requests[0]?.context).toBe("[first][second]");
  });

  it("give each capability hook its own capability's resources and the Session's sandbox", async () => {
    const seen: string[] = [];
    const kind: BindingKind<string, string> = {
      name: "scoped",
      acquire: async (spec, { sessionId }) => ({ value: `${spec}@${sessionId}`, close: () => undefined }),
    };
    const sandboxValue = Object.freeze({ kind: "test-sandbox" });
    const sandbox: SandboxContribution = {
      specifier: "test.scoped",
      open: async () => ({ sandbox: sandboxValue, close: () => undefined }),
    };
    const scoped = (name: string) =>
      defineCapability({
        name,
        resources: [resource(kind, name)],
        hooks: {
          sessionStart: (info) => void seen.push(`${name}:start:${info.resources.map((h) => h.value).join()}`),
          turnStart: (info) => void seen.push(`${name}:turn:${info.resources.map((h) => h.value).join()}`),
          beforeModel: (_request, info) => void seen.push(`${name}:model:${info.sandbox === sandboxValue}`),
          sessionEnd: (info) =>
            void seen.push(`${name}:end:${info.resources.map((h) => h.value).join()}:${info.sandbox === sandboxValue}`),
        },
      });
    const agent = defineAgent("test.scoped-hooks", {
      model: scriptedModel([{ text: "hi" }]),
      sandbox,
      capabilities: [scoped("one"), scoped("two")],
    });
    const runner = await createNodeRunner({ agent });
    try {
      const session = await runner.createSession({ id: "s9" });
      await session.run("hello").result;
      await session.close();
    } finally {
      await runner.close();
    }
    expect(seen).toEqual([
      "one:start:one@s9",
      "two:start:two@s9",
      "one:turn:one@s9",
      "two:turn:two@s9",
      "one:model:true",
      "two:model:true",
      "one:end:one@s9:true",
      "two:end:two@s9:true",
    ]);
  });

  it("run a capability's hooks only for Sessions of an agent that declares it", async () => {
    const log: string[] = [];
    const runner = await createNodeRunner({
      agent: defineAgent("test.without", { model: scriptedModel([{ text: "hi" }]) }),
      plugins: [loggingPlugin(log)],
    });
    try {
      const session = await runner.createSession({ id: "plain" });
      await session.run("hello").result;
      await session.close();
    } finally {
      await runner.close();
    }
    expect(log.filter((entry) => !entry.startsWith("plugin:"))).toEqual([]);
  });

  it("gives sessionStart the saved receipts of the transcript, compacted ones included", async () => {
    const store = createMemorySessionStore();
    const steps = [{ toolCalls: [{ id: "n1", name: "note", input: {} }] }, { text: "done" }, { text: "summary" }];
    const agent = defineAgent("test.receipts", { model: scriptedModel(steps), tools: [note] });
    const first = await createNodeRunner({
      agent,
      permissions: "full-access",
      plugins: [plugin("store", (host) => host.registerSessionStore(store))],
    });
    try {
      const session = await first.createSession({ id: "r" });
      await session.run("note it").result;
      await session.compact();
      await session.close();
    } finally {
      await first.close();
    }
    const seen: unknown[] = [];
    const second = await createNodeRunner({
      agent: defineAgent("test.receipts", { model: scriptedModel([]), tools: [note] }),
      plugins: [
        plugin("store", (host) => host.registerSessionStore(store)),
        plugin("reader", (host) => host.hooks.sessionStart((info) => void seen.push(info.toolCalls("note")))),
      ],
    });
    try {
      await second.createSession({ id: "r" });
    } finally {
      await second.close();
    }
    expect(seen).toEqual([[expect.objectContaining({ toolCallId: "n1", name: "note", ok: true })]]);
  });

  it("a failing sessionStart fails the open and releases what was acquired", async () => {
    const log: string[] = [];
    const agent = defineAgent("test.start-fails", {
      model: scriptedModel([]),
      capabilities: [loggingCapability("held", log), loggingCapability("broken", log, "sessionStart")],
    });
    const runner = await createNodeRunner({ agent });
    try {
      const error = await rejection(runner.createSession({ id: "x" }));
      expect(error).toBeInstanceOf(SessionHookError);
      expect(error).toMatchObject({ code: "session_hook_failed" });
      expect((error as Error).message).toContain('capability "broken"');
      expect(log.slice(-2)).toEqual(["broken:release", "held:release"]);
      expect(log).not.toContain("held:sessionEnd:x");
    } finally {
      await runner.close();
    }
  });

  it("a failing sessionEnd skips no other hook, resources are still released, and close() reports it", async () => {
    const log: string[] = [];
    const agent = defineAgent("test.end-fails", {
      model: scriptedModel([]),
      capabilities: [loggingCapability("broken", log, "sessionEnd"), loggingCapability("after", log)],
    });
    const runner = await createNodeRunner({ agent });
    try {
      const session = await runner.createSession({ id: "e" });
      const error = await rejection(session.close());
      expect(error).toBeInstanceOf(SessionHookError);
      expect((error as Error).message).toContain("broken cannot end");
      expect(log.slice(-4)).toEqual(["broken:sessionEnd:e", "after:sessionEnd:e", "after:release", "broken:release"]);
    } finally {
      await runner.close().catch(() => undefined);
    }
  });

  it("refuses an unknown hook or one that is not a function at declaration", () => {
    expect(() => defineCapability({ name: "bad", hooks: { onOpen: () => undefined } as never })).toThrow(
      DeclarationError,
    );
    expect(() => defineCapability({ name: "bad", hooks: { turnStart: "soon" } as never })).toThrow(
      /must be a function/,
    );
  });
});

describe("a contributed sandbox", () => {
  it("is opened with the Session's id and params", async () => {
    const seen: unknown[] = [];
    const sandbox: SandboxContribution = {
      specifier: "test/sandbox",
      async open(options) {
        seen.push({
          sessionId: options.sessionId,
          params: options.params,
          signal: options.signal instanceof AbortSignal,
        });
        return { sandbox: {}, close: () => undefined };
      },
    };
    const agent = defineAgent("test.sandbox-open", { model: scriptedModel([]), params: ["checkout"], sandbox });
    const runner = await createNodeRunner({ agent });
    try {
      const session = await runner.createSession({ id: "sb", params: { checkout: "/work/repo" } });
      await session.close();
    } finally {
      await runner.close();
    }
    expect(seen).toEqual([{ sessionId: "sb", params: { checkout: "/work/repo" }, signal: true }]);
  });
});
