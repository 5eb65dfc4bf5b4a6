// A tool reaches what its Session acquired: `ctx.sandbox` is the lease's sandbox value and
// `ctx.resources` the handles of the tool's own capability, each exposing its acquired value.
import {
  type BindingHandle,
  type BindingKind,
  defineAgent,
  defineCapability,
  defineTool,
  hostTool,
  resource,
  type ToolContext,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { openSession, type SandboxLease } from "../src/index.js";
import { openOnOwnRunner, plugin } from "./support/index.ts";

/** A tool that keeps the context of every call. */
function recordingTool(name: string, seen: ToolContext[]) {
  return defineTool({
    name,
    description: `records ${name}`,
    readOnly: true,
    execute: (_input: unknown, ctx: ToolContext) => {
      seen.push(ctx);
      return "ok";
    },
  });
}

/** A model that calls each named tool once, then answers. */
const callEach = (...names: string[]) =>
  scriptedModel([{ toolCalls: names.map((name) => ({ name, input: {} })) }, { text: "done" }]);

const counter: BindingKind<{ readonly start: number }, { count: number }> = {
  name: "counter",
  acquire: async (spec) => ({ value: { count: spec.start }, close: () => undefined }),
};
const label: BindingKind<string, string> = {
  name: "label",
  acquire: async (spec) => ({ value: `label:${spec}`, close: () => undefined }),
};

describe("ctx.sandbox", () => {
  it("is the sandbox value of the lease the agent's own acquisition opened", async () => {
    const seen: ToolContext[] = [];
    const box = { name: "the sandbox" };
    const lease: SandboxLease = { sandbox: box, close: () => undefined };
    const agent = defineAgent("test.sandbox", {
      model: callEach("probe", "probe"),
      tools: [recordingTool("probe", seen)],
      sandbox: { specifier: "test/box", open: async () => lease },
    });
    const session = await openSession({ agent });
    try {
      await session.run("go").result;
    } finally {
      await session.close();
    }
    expect(seen).toHaveLength(2);
    expect(seen[0]?.sandbox).toBe(lease.sandbox);
    expect(seen[1]?.sandbox).toBe(box);
  });

  it("is the value the host's sandbox resolver leased for a named sandbox, one per Session", async () => {
    const seen: ToolContext[] = [];
    let opened = 0;
    const agent = defineAgent("test.sandbox", {
      model: scriptedModel([
        { toolCalls: [{ name: "probe", input: {} }] },
        { text: "one" },
        { toolCalls: [{ name: "probe", input: {} }] },
        { text: "two" },
      ]),
      tools: [recordingTool("probe", seen)],
      sandbox: "local/box",
    });
    const { session, close } = await openOnOwnRunner({
      agent,
      permissions: "ask-on-write",
      plugins: [
        plugin("sandboxes", (host) =>
          host.registerSandboxResolver({
            open: async ({ specifier, sessionId }) => ({
              sandbox: { specifier, sessionId, serial: ++opened },
              close: () => undefined,
            }),
          }),
        ),
      ],
    });
    try {
      await session.run("a").result;
      await session.run("b").result;
    } finally {
      await close();
    }
    expect(opened).toBe(1);
    expect(seen[0]?.sandbox).toEqual({ specifier: "local/box", sessionId: session.id, serial: 1 });
    expect(seen[1]?.sandbox).toBe(seen[0]?.sandbox);
  });

  it("is undefined when the agent declares no sandbox", async () => {
    const seen: ToolContext[] = [];
    const session = await openSession({
      agent: defineAgent("test.sandbox", { model: callEach("probe"), tools: [recordingTool("probe", seen)] }),
    });
    try {
      await session.run("go").result;
    } finally {
      await session.close();
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]?.sandbox).toBeUndefined();
  });
});

describe("ctx.resources", () => {
  it("holds the handles of the tool's own capability, in declaration order, with their values", async () => {
    const seen: ToolContext[] = [];
    const counterRequest = resource(counter, { fromParams: (params) => ({ start: Number(params.start) }) });
    const labelRequest = resource(label, "main");
    const otherRequest = resource(label, "other");
    const agent = defineAgent("test.resources", {
      model: callEach("capability_tool", "agent_tool", "other_tool", "host_ref"),
      params: ["start"],
      tools: [recordingTool("agent_tool", seen)],
      capabilities: [
        defineCapability({
          name: "main",
          tools: [recordingTool("capability_tool", seen), hostTool("host_ref")],
          resources: [counterRequest, labelRequest],
        }),
        defineCapability({ name: "other", tools: [recordingTool("other_tool", seen)], resources: [otherRequest] }),
      ],
    });
    const { session, close } = await openOnOwnRunner(
      {
        agent,
        permissions: "ask-on-write",
        plugins: [plugin("host tools", (host) => host.registerTool(recordingTool("host_ref", seen)))],
      },
      { params: { start: 7 } },
    );
    try {
      await session.run("go").result;
    } finally {
      await close();
    }
    const byTool = new Map(seen.map((ctx) => [ctx.toolName, ctx.resources]));
    const main = byTool.get("capability_tool") as readonly BindingHandle[];
    expect(main.map(({ kind, spec, value }) => ({ kind, spec, value }))).toEqual([
      { kind: "counter", spec: { start: 7 }, value: { count: 7 } },
      { kind: "label", spec: "main", value: "label:main" },
    ]);
    expect(main[0]?.request).toBe(counterRequest);
    expect(main[1]?.request).toBe(labelRequest);
    expect(Object.isFrozen(main) && main.every((handle) => Object.isFrozen(handle))).toBe(true);
    // The handle's value is the one the turn context reads for the same request.
    expect(main[0]?.value).toBe(seen.find((ctx) => ctx.toolName === "capability_tool")?.resource(counterRequest));
    // A host tool referenced by the capability sees that capability's resources; others their own or none.
    expect(byTool.get("host_ref")).toBe(main);
    expect(byTool.get("other_tool")?.map((handle) => handle.value)).toEqual(["label:other"]);
    expect(byTool.get("agent_tool")).toEqual([]);
  });
});
