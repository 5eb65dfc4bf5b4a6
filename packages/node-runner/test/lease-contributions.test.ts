// A resource's lease may carry tools (and skills) found at acquisition: they join the declaring
// capability for that Session, bound, validated and projected like declared ones; a name that
// clashes with another tool fails the open.
import { type BindingKind, defineAgent, defineCapability, defineTool, resource, type Tool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner } from "../src/index.js";
import { drain, textOf } from "./support/index.ts";

function catalogCapability(found: readonly Tool[]) {
  const kind: BindingKind<string, string> = {
    name: "catalog",
    acquire: async (spec, { sessionId }) => ({ value: `${spec}@${sessionId}`, tools: found, close: () => undefined }),
  };
  return defineCapability({ name: "mcp:catalog", resources: [resource(kind, "server")] });
}

describe("tools a lease contributes", () => {
  it("join the capability for the Session: listed, validated, called, with the capability as source", async () => {
    const echo = defineTool<{ text: string }>({
      name: "found_echo",
      description: "Echo, found at acquisition",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      },
      readOnly: true,
      execute: (input, ctx) => `${input.text} (${ctx.resources[0]?.value})`,
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "found_echo", input: { text: "hi" } },
          { name: "found_echo", input: { text: 3 } },
        ],
      },
      { text: "done" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.lease-tools", { model, capabilities: [catalogCapability([echo])] }),
      permissions: "read-only",
    });
    try {
      const session = await runner.createSession({ id: "s1" });
      const { events } = await drain(session.run("go"));
      expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["found_echo"]);
      const ends = events.flatMap((event) => (event.kind === "tool-end" ? [event] : []));
      expect(textOf(ends[0]?.result)).toBe("hi (server@s1)");
      expect(ends[0]?.source).toEqual({ kind: "capability", name: "mcp:catalog" });
      expect(ends[1]?.result.isError).toBe(true);
      expect(session.inspect().current.tools.map((tool) => [tool.name, tool.source])).toEqual([
        ["found_echo", { kind: "capability", name: "mcp:catalog" }],
      ]);
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it("fail the open when a found tool's name clashes with another tool", async () => {
    const clash = defineTool({ name: "taken", description: "Found", execute: () => "found" });
    const own = defineTool({ name: "taken", description: "The agent's", execute: () => "own" });
    const runner = await createNodeRunner({
      agent: defineAgent("test.lease-clash", {
        model: scriptedModel([]),
        tools: [own],
        capabilities: [catalogCapability([clash])],
      }),
    });
    try {
      await expect(runner.createSession()).rejects.toMatchObject({ code: "invalid_declaration" });
    } finally {
      await runner.close();
    }
  });
});
