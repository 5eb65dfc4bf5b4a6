// A tool's own permission rule: defineTool({ permission }) is asked what a plugin's
// toolPermission hook is asked, after the plugins' hooks, and every answer merges (deny beats
// ask beats allow); the preset answers only when all of them defer.
import { defineAgent, defineTool, type JsonValue, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type NodeRunnerPlugin, openSession, type ToolPermissionRequest } from "../src/index.js";

function permissions(events: readonly RunEvent[]) {
  return events
    .filter((event): event is Extract<RunEvent, { kind: "tool-permission" }> => event.kind === "tool-permission")
    .map((event) => [event.toolCallId, event.decision, event.decidedBy, event.reason ?? ""]);
}

describe("defineTool({ permission })", () => {
  it("decides its own calls with the plugins' hooks, typed by its schema, and defers to the preset", async () => {
    const asked: { request: ToolPermissionRequest; sandbox: unknown; resources: number }[] = [];
    const ran: JsonValue[] = [];
    const deploy = defineTool({
      name: "deploy",
      description: "Deploy",
      inputSchema: z.object({ target: z.enum(["staging", "production", "broken", "vetoed"]) }),
      permission(request, ctx) {
        asked.push({ request, sandbox: ctx.sandbox, resources: ctx.resources.length });
        const { target } = request.input;
        if (target === "staging") return "allow";
        if (target === "broken") throw new Error("the rule broke");
        if (target === "production") return { decision: "deny", reason: "Production deploys go through CI." };
        return undefined;
      },
      execute: (input) => {
        ran.push(input);
        return "deployed";
      },
    });
    const veto: NodeRunnerPlugin = {
      name: "test.veto",
      apply: (host) => host.hooks.toolPermission((request) => (request.toolCallId === "d5" ? "deny" : undefined)),
    };
    const session = await openSession({
      agent: defineAgent("test.own-permission", {
        model: scriptedModel([
          {
            toolCalls: [
              { id: "d1", name: "deploy", input: { target: "staging" } },
              { id: "d2", name: "deploy", input: { target: "production" } },
              { id: "d3", name: "deploy", input: { target: "broken" } },
              { id: "d4", name: "deploy", input: { target: "vetoed" } },
              { id: "d5", name: "deploy", input: { target: "staging" } },
            ],
          },
          { text: "done" },
        ]),
        tools: [deploy],
      }),
      plugins: [veto],
    });
    try {
      const events: RunEvent[] = [];
      for await (const event of session.run("go")) events.push(event);
      expect(permissions(events)).toEqual([
        ["d1", "allow", "hook", ""],
        ["d2", "deny", "hook", "Production deploys go through CI."],
        ["d3", "deny", "hook", "A permission hook failed: the rule broke"],
        // Every hook deferred: ask-on-write asks, and with no approval adapter that is a deny.
        ["d4", "deny", "preset", expect.stringMatching(/no approval adapter/)],
        // The plugin's deny beats the tool's allow.
        ["d5", "deny", "hook", expect.any(String)],
      ]);
      expect(ran).toEqual([{ target: "staging" }]);
      expect(asked.map((entry) => entry.request.toolCallId)).toEqual(["d1", "d2", "d3", "d4", "d5"]);
      expect(asked[0]).toMatchObject({
        request: { toolName: "deploy", source: { kind: "agent" }, readOnly: false, sessionId: session.id },
        sandbox: undefined,
        resources: 0,
      });
    } finally {
      await session.close();
    }
  });

  it("refuses a permission that is not a function", () => {
    expect(() => defineTool({ name: "x", description: "x", permission: "allow" as never, execute: () => "" })).toThrow(
      /permission must be a function/,
    );
  });
});
