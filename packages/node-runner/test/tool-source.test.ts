// Every permission request, approval request and tool-start / tool-end event names who
// contributed the tool (`source`): the agent, or the capability that declares it.
import { defineAgent, defineCapability, defineTool, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner, type ToolApprovalRequest, type ToolPermissionRequest } from "../src/index.js";
import { approvalPlugin, drain, plugin } from "./support/index.ts";

describe("a tool call's source", () => {
  it("is the agent or the declaring capability in permission and approval requests and in tool events", async () => {
    const own = defineTool({ name: "own_tool", description: "The agent's own", execute: () => "own" });
    const lent = defineTool({ name: "lent_tool", description: "A capability's", execute: () => "lent" });
    const permissions: ToolPermissionRequest[] = [];
    const approvals: ToolApprovalRequest[] = [];
    const agent = defineAgent("test.source", {
      model: scriptedModel([
        {
          toolCalls: [
            { name: "own_tool", input: {} },
            { name: "lent_tool", input: {} },
            { name: "missing_tool", input: {} },
          ],
        },
        { text: "done" },
      ]),
      tools: [own],
      capabilities: [defineCapability({ name: "mcp:fixture", tools: [lent] })],
    });
    const runner = await createNodeRunner({
      agent,
      permissions: "ask-on-write",
      plugins: [
        plugin("test.hook", (host) => host.hooks.toolPermission((request) => void permissions.push(request))),
        approvalPlugin(async (request) => {
          approvals.push(request);
          return { decision: "allow" };
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("go"));
      await session.close();
      const sources = (kind: RunEvent["kind"]) =>
        events.flatMap((event) =>
          event.kind === kind && (event.kind === "tool-start" || event.kind === "tool-end")
            ? [[event.toolName, event.source ?? null]]
            : [],
        );
      const capability = { kind: "capability", name: "mcp:fixture" };
      expect(permissions.map((request) => [request.toolName, request.source])).toEqual([
        ["own_tool", { kind: "agent" }],
        ["lent_tool", capability],
      ]);
      expect(approvals.map((request) => [request.toolName, request.source])).toEqual([
        ["own_tool", { kind: "agent" }],
        ["lent_tool", capability],
      ]);
      expect(sources("tool-start")).toEqual([
        ["own_tool", { kind: "agent" }],
        ["lent_tool", capability],
      ]);
      expect(new Map(sources("tool-end") as [string, unknown][])).toEqual(
        new Map<string, unknown>([
          ["own_tool", { kind: "agent" }],
          ["lent_tool", capability],
          ["missing_tool", null],
        ]),
      );
    } finally {
      await runner.close();
    }
  });
});
