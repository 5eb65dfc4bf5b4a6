import { defineAgent, defineTool, type JsonValue, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createNodeRunner,
  type NodeRunnerPlugin,
  openSession,
  type PermissionPreset,
  type ToolApprovalAnswer,
  type ToolApprovalRequest,
  type ToolPermissionContribution,
  type ToolPermissionRequest,
} from "../src/index.js";
import { approvalPlugin, drain, plugin, textOf, toolMessages } from "./support/index.ts";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type PermissionEvent = Extract<RunEvent, { kind: "tool-permission" }>;

function permissionEvents(events: readonly RunEvent[]): PermissionEvent[] {
  return events.filter((event): event is PermissionEvent => event.kind === "tool-permission");
}

const actSchema = {
  type: "object",
  properties: { path: { type: "string" }, lines: { type: "array", items: { type: "integer" } } },
  required: ["path"],
  additionalProperties: false,
} as const;

/** A tool that records every execution. */
function actTool(readOnly: boolean, executed: JsonValue[]) {
  return defineTool({
    name: "act",
    description: "Act on a path",
    inputSchema: actSchema,
    readOnly,
    execute: (input: JsonValue) => {
      executed.push(input);
      return "acted";
    },
  });
}

/** The model asks for one `act` call, then answers "done". */
function actModel(input: JsonValue = { path: "a.txt", lines: [1, 2] }) {
  return scriptedModel([{ toolCalls: [{ name: "act", input }] }, { text: "done" }]);
}

/** Agent `id` with the recording `act` tool, on a model asking for one `act` call with `input` (see actModel). */
function actAgent(id: string, readOnly: boolean, input?: JsonValue) {
  const executed: JsonValue[] = [];
  const model = actModel(input);
  const agent = defineAgent(id, { model, tools: [actTool(readOnly, executed)] });
  return { executed, model, agent };
}

// ---------------------------------------------------------------------------------------------
// The precedence table
// ---------------------------------------------------------------------------------------------

/** One permission hook: it answers `answer`, or throws. */
type HookSpec = { readonly answer: unknown } | { readonly throws: string };

interface HookScenario {
  readonly name: string;
  readonly hooks: readonly HookSpec[];
  /** What the hooks settle on: `none` leaves the call to the preset. */
  readonly verdict: "none" | "allow" | "ask" | "deny";
  /** The reason the hooks give with their verdict (exact string, or a matcher for generated ones). */
  readonly reason?: string | ReturnType<typeof expect.stringContaining>;
  /** How many hooks are asked (default: all of them). */
  readonly asked?: number;
}

const hookScenarios: readonly HookScenario[] = [
  { name: "no hooks", hooks: [], verdict: "none" },
  { name: "one hook deferring", hooks: [{ answer: "defer" }], verdict: "none" },
  { name: "one hook giving nothing", hooks: [{ answer: undefined }], verdict: "none" },
  { name: "one hook answering { decision: defer }", hooks: [{ answer: { decision: "defer" } }], verdict: "none" },
  {
    name: "several hooks all deferring",
    hooks: [{ answer: "defer" }, { answer: undefined }, { answer: { decision: "defer", reason: "not mine" } }],
    verdict: "none",
  },
  { name: "allow", hooks: [{ answer: "allow" }], verdict: "allow" },
  { name: "ask", hooks: [{ answer: "ask" }], verdict: "ask" },
  { name: "deny", hooks: [{ answer: "deny" }], verdict: "deny", reason: expect.stringContaining("host policy") },
  {
    name: "allow with a reason",
    hooks: [{ answer: { decision: "allow", reason: "trusted path" } }],
    verdict: "allow",
    reason: "trusted path",
  },
  {
    name: "ask with a reason",
    hooks: [{ answer: { decision: "ask", reason: "touches the repo" } }],
    verdict: "ask",
    reason: "touches the repo",
  },
  {
    name: "deny with a reason",
    hooks: [{ answer: { decision: "deny", reason: "outside the root" } }],
    verdict: "deny",
    reason: "outside the root",
  },
  { name: "defer then allow", hooks: [{ answer: "defer" }, { answer: "allow" }], verdict: "allow" },
  { name: "allow then ask (ask wins)", hooks: [{ answer: "allow" }, { answer: "ask" }], verdict: "ask" },
  { name: "ask then allow (ask wins)", hooks: [{ answer: "ask" }, { answer: "allow" }], verdict: "ask" },
  {
    name: "allow, deny, ask (deny wins)",
    hooks: [{ answer: "allow" }, { answer: "deny" }, { answer: "ask" }],
    verdict: "deny",
    reason: expect.stringContaining("host policy"),
  },
  {
    name: "object answers mixing, deny's reason wins",
    hooks: [
      { answer: { decision: "allow", reason: "r-allow" } },
      { answer: { decision: "deny", reason: "r-deny" } },
      { answer: { decision: "ask", reason: "r-ask" } },
      { answer: "defer" },
    ],
    verdict: "deny",
    reason: "r-deny",
  },
  {
    name: "object allow then object ask, ask's reason wins",
    hooks: [{ answer: { decision: "allow", reason: "r-allow" } }, { answer: { decision: "ask", reason: "r-ask" } }],
    verdict: "ask",
    reason: "r-ask",
  },
  {
    name: "a hook that throws",
    hooks: [{ throws: "policy store offline" }],
    verdict: "deny",
    reason: expect.stringContaining("policy store offline"),
    asked: 1,
  },
  {
    name: "allow then a hook that throws",
    hooks: [{ answer: "allow" }, { throws: "boom" }],
    verdict: "deny",
    reason: expect.stringContaining("boom"),
    asked: 2,
  },
  {
    name: "an invalid string answer",
    hooks: [{ answer: "yes" }],
    verdict: "deny",
    reason: expect.stringContaining("invalid answer"),
  },
  {
    name: "an invalid object answer",
    hooks: [{ answer: { decision: "maybe", reason: "unsure" } }],
    verdict: "deny",
    reason: expect.stringContaining("invalid answer"),
  },
  {
    name: "allow then an invalid answer",
    hooks: [{ answer: "allow" }, { answer: 42 }],
    verdict: "deny",
    reason: expect.stringContaining("invalid answer"),
  },
];

/** `undefined`: createNodeRunner without `permissions`, which applies no preset. */
const presets: readonly (PermissionPreset | undefined)[] = ["read-only", "ask-on-write", "full-access", undefined];
type ApprovalMode = "absent" | "allowing" | "denying";
const approvalModes: readonly ApprovalMode[] = ["absent", "allowing", "denying"];

interface ExpectedOutcome {
  readonly executed: boolean;
  readonly decision: "allow" | "deny";
  readonly decidedBy: "hook" | "preset" | "approval";
  readonly reason: unknown;
  readonly approvalAsked: boolean;
}

/** The documented precedence, written out independently of the implementation. */
function expectedOutcome(
  scenario: HookScenario,
  preset: PermissionPreset | undefined,
  readOnly: boolean,
  approval: ApprovalMode,
): ExpectedOutcome {
  let verdict: "allow" | "ask" | "deny";
  let decidedBy: "hook" | "preset" | "approval";
  if (scenario.verdict === "none" && preset === undefined) {
    // No preset: whatever the hooks leave open, read-only or not, is asked about.
    decidedBy = "approval";
    verdict = "ask";
  } else if (scenario.verdict === "none") {
    decidedBy = "preset";
    verdict = readOnly ? "allow" : preset === "read-only" ? "deny" : preset === "full-access" ? "allow" : "ask";
  } else {
    decidedBy = "hook";
    verdict = scenario.verdict;
  }
  const hookReason = scenario.verdict === "none" ? undefined : scenario.reason;
  if (verdict === "allow") {
    return { executed: true, decision: "allow", decidedBy, reason: hookReason, approvalAsked: false };
  }
  if (verdict === "deny") {
    const reason = hookReason ?? expect.stringContaining(`"${preset}" permission preset`);
    return { executed: false, decision: "deny", decidedBy, reason, approvalAsked: false };
  }
  // ask
  if (approval === "absent") {
    return {
      executed: false,
      decision: "deny",
      decidedBy,
      reason: expect.stringContaining("no approval adapter"),
      approvalAsked: false,
    };
  }
  if (approval === "allowing") {
    return {
      executed: true,
      decision: "allow",
      decidedBy: "approval",
      reason: "approved in test",
      approvalAsked: true,
    };
  }
  return { executed: false, decision: "deny", decidedBy: "approval", reason: "rejected in test", approvalAsked: true };
}

const cases = hookScenarios.flatMap((scenario) =>
  presets.flatMap((preset) =>
    [true, false].flatMap((readOnly) => approvalModes.map((approval) => ({ scenario, preset, readOnly, approval }))),
  ),
);

describe("the permission precedence table", () => {
  it.each(cases)(
    "hooks: $scenario.name | preset $preset | readOnly $readOnly | approval $approval",
    async ({ scenario, preset, readOnly, approval }) => {
      const expected = expectedOutcome(scenario, preset, readOnly, approval);
      const { executed, model, agent } = actAgent("test.permissions", readOnly);
      const hookRequests: ToolPermissionRequest[][] = scenario.hooks.map(() => []);
      const approvalRequests: ToolApprovalRequest[] = [];

      const plugins: NodeRunnerPlugin[] = [];
      if (scenario.hooks.length > 0) {
        plugins.push(
          plugin("test.hooks", (host) => {
            scenario.hooks.forEach((spec, index) => {
              host.hooks.toolPermission(async (request, options) => {
                expect(options.signal).toBeInstanceOf(AbortSignal);
                hookRequests[index]?.push(request);
                if ("throws" in spec) throw new Error(spec.throws);
                return spec.answer as ToolPermissionContribution;
              });
            });
          }),
        );
      }
      if (approval !== "absent") {
        plugins.push(
          approvalPlugin(async (request, options) => {
            expect(options.signal).toBeInstanceOf(AbortSignal);
            approvalRequests.push(request);
            return approval === "allowing"
              ? { decision: "allow", reason: "approved in test" }
              : { decision: "deny", reason: "rejected in test" };
          }),
        );
      }

      const runner = await createNodeRunner({ agent, plugins, ...(preset ? { permissions: preset } : {}) });
      try {
        const session = await runner.createSession({ id: "perm-session" });
        const run = session.run("Please act");
        const { events, error } = await drain(run);
        expect(error).toBeUndefined();

        // Executed or not.
        expect(executed).toEqual(expected.executed ? [{ path: "a.txt", lines: [1, 2] }] : []);
        expect(events.some((event) => event.kind === "tool-start")).toBe(expected.executed);

        // The permission event.
        const permission = permissionEvents(events);
        expect(permission).toHaveLength(1);
        const event = permission[0] as PermissionEvent;
        expect(event).toMatchObject({
          runId: run.id,
          turn: 1,
          toolCallId: "call_1",
          toolName: "act",
          decision: expected.decision,
          decidedBy: expected.decidedBy,
        });
        if (expected.reason === undefined) expect(event).not.toHaveProperty("reason");
        else expect(event.reason).toEqual(expected.reason);

        // Every hook is asked (up to one that throws), with the full request.
        const asked = scenario.asked ?? scenario.hooks.length;
        const expectedRequest = {
          agent: { id: "test.permissions" },
          sessionId: "perm-session",
          runId: run.id,
          turn: 1,
          toolCallId: "call_1",
          toolName: "act",
          source: { kind: "agent" },
          input: { path: "a.txt", lines: [1, 2] },
          readOnly,
        };
        hookRequests.slice(0, asked).forEach((requests) => {
          expect(requests).toHaveLength(1);
          expect(requests[0]).toEqual(expectedRequest);
        });

        // The approval adapter is asked only for an `ask`, and carries the hook's reason.
        if (expected.approvalAsked) {
          expect(approvalRequests).toHaveLength(1);
          const askReason = scenario.verdict === "ask" ? scenario.reason : undefined;
          expect(approvalRequests[0]).toEqual({
            ...expectedRequest,
            title: "Call act",
            summary: "",
            description: "Act on a path",
            ...(askReason === undefined ? {} : { reason: askReason }),
          });
        } else {
          expect(approvalRequests).toHaveLength(0);
        }

        // What the model reads next.
        const result = toolMessages(model.requests[1]?.messages ?? [])[0];
        expect(result).toMatchObject({ toolCallId: "call_1", toolName: "act" });
        if (expected.executed) {
          expect(result?.isError).toBe(false);
          expect(textOf(result)).toBe("acted");
        } else {
          expect(result?.isError).toBe(true);
          expect(textOf(result)).toMatch(/^Permission denied for tool "act"/);
          if (typeof event.reason === "string") expect(textOf(result)).toContain(event.reason);
        }
        model.assertComplete();
      } finally {
        await runner.close();
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Defaults, validation before permission, adapter failures
// ---------------------------------------------------------------------------------------------

describe("permission defaults", () => {
  it("openSession defaults to ask-on-write: a write tool goes to the approval plugin", async () => {
    const { executed, agent } = actAgent("test.defaults", false);
    const asked: ToolApprovalRequest[] = [];
    const session = await openSession({
      agent,
      approval: approvalPlugin(async (request) => {
        asked.push(request);
        return { decision: "allow" };
      }),
    });
    try {
      const { events } = await drain(session.run("go"));
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ toolName: "act", readOnly: false, description: "Act on a path" });
      expect(asked[0]).not.toHaveProperty("reason");
      expect(permissionEvents(events)[0]).toMatchObject({ decision: "allow", decidedBy: "approval" });
      expect(permissionEvents(events)[0]).not.toHaveProperty("reason");
      expect(executed).toHaveLength(1);
    } finally {
      await session.close();
    }
  });

  it("openSession without an approval plugin denies a write tool (ask without an adapter)", async () => {
    const { executed, model, agent } = actAgent("test.defaults", false);
    const session = await openSession({ agent });
    try {
      const { events } = await drain(session.run("go"));
      expect(permissionEvents(events)[0]).toMatchObject({ decision: "deny", decidedBy: "preset" });
      expect(executed).toHaveLength(0);
      const result = toolMessages(model.requests[1]?.messages ?? [])[0];
      expect(result?.isError).toBe(true);
      expect(textOf(result)).toContain("Permission denied");
    } finally {
      await session.close();
    }
  });

  it("openSession without an approval plugin still allows a declared read-only tool", async () => {
    const { executed, agent } = actAgent("test.defaults", true);
    const session = await openSession({ agent });
    try {
      const { events } = await drain(session.run("go"));
      expect(permissionEvents(events)[0]).toMatchObject({ decision: "allow", decidedBy: "preset" });
      expect(executed).toHaveLength(1);
    } finally {
      await session.close();
    }
  });

  it("openSession honours an explicit preset", async () => {
    const { executed, agent } = actAgent("test.defaults", false);
    const session = await openSession({ agent, permissions: "full-access" });
    try {
      const { events } = await drain(session.run("go"));
      expect(permissionEvents(events)[0]).toMatchObject({ decision: "allow", decidedBy: "preset" });
      expect(executed).toHaveLength(1);
    } finally {
      await session.close();
    }
  });

  it("createNodeRunner without permissions applies no preset: even a read-only call the hooks leave open is asked about", async () => {
    const { executed, model, agent } = actAgent("test.defaults", true);
    const asked: ToolApprovalRequest[] = [];
    const runner = await createNodeRunner({
      agent,
      plugins: [
        approvalPlugin(async (request) => {
          asked.push(request);
          return { decision: "deny", reason: "no writes today" };
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("go"));
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ toolName: "act", readOnly: true });
      expect(permissionEvents(events)[0]).toMatchObject({
        decision: "deny",
        decidedBy: "approval",
        reason: "no writes today",
      });
      expect(executed).toHaveLength(0);
      expect(textOf(toolMessages(model.requests[1]?.messages ?? [])[0])).toContain("no writes today");
    } finally {
      await runner.close();
    }
  });

  it("rejects a permissions value outside the presets", async () => {
    const agent = defineAgent("test.defaults", { model: actModel(), tools: [] });
    await expect(createNodeRunner({ agent, permissions: "yolo" as unknown as PermissionPreset })).rejects.toMatchObject(
      { code: "invalid_options", message: expect.stringContaining('"yolo"') },
    );
    await expect(openSession({ agent, permissions: "yolo" as unknown as PermissionPreset })).rejects.toMatchObject({
      code: "invalid_options",
    });
  });
});

describe("permission questions", () => {
  it("invalid input gets an error result before any permission question", async () => {
    const { executed, model, agent } = actAgent("test.invalid", false, { path: 7 });
    let hookCalls = 0;
    let approvalCalls = 0;
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.policy", (host) => {
          host.hooks.toolPermission(() => {
            hookCalls++;
            return "ask";
          });
          host.registerApproval({
            async request() {
              approvalCalls++;
              return { decision: "allow" };
            },
          });
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("go"));
      expect(error).toBeUndefined();
      expect(hookCalls).toBe(0);
      expect(approvalCalls).toBe(0);
      expect(executed).toHaveLength(0);
      expect(permissionEvents(events)).toHaveLength(0);
      expect(events.some((event) => event.kind === "tool-start")).toBe(false);
      const result = toolMessages(model.requests[1]?.messages ?? [])[0];
      expect(result?.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Invalid input for tool "act"/);
    } finally {
      await runner.close();
    }
  });

  it("hooks and the tool see the exact validated input: a frozen copy of what the model sent", async () => {
    let hookInput: JsonValue | undefined;
    let approvalInput: JsonValue | undefined;
    let toolInput: JsonValue | undefined;
    const model = actModel({ path: "deep/file.ts", lines: [3, 4] });
    const tool = defineTool({
      name: "act",
      description: "Act on a path",
      inputSchema: actSchema,
      execute: (input: JsonValue) => {
        toolInput = input;
        return "ok";
      },
    });
    const agent = defineAgent("test.input", { model, tools: [tool] });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.policy", (host) => {
          host.hooks.toolPermission((request) => {
            hookInput = request.input;
            return "ask";
          });
          host.registerApproval({
            async request(request) {
              approvalInput = request.input;
              return { decision: "allow" };
            },
          });
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      await drain(session.run("go"));
      expect(hookInput).toEqual({ path: "deep/file.ts", lines: [3, 4] });
      expect(Object.isFrozen(hookInput)).toBe(true);
      expect(Object.isFrozen((hookInput as { lines: number[] }).lines)).toBe(true);
      expect(approvalInput).toBe(hookInput);
      expect(toolInput).toBe(hookInput);
    } finally {
      await runner.close();
    }
  });

  it("an approval adapter that throws denies the call with the failure as reason", async () => {
    const { executed, model, agent } = actAgent("test.approval-throws", false);
    const session = await openSession({
      agent,
      approval: approvalPlugin(async () => {
        throw new Error("terminal detached");
      }),
    });
    try {
      const { events, error } = await drain(session.run("go"));
      expect(error).toBeUndefined();
      const event = permissionEvents(events)[0];
      expect(event).toMatchObject({ decision: "deny", decidedBy: "approval" });
      expect(event?.reason).toContain("terminal detached");
      expect(executed).toHaveLength(0);
      const result = toolMessages(model.requests[1]?.messages ?? [])[0];
      expect(result?.isError).toBe(true);
      expect(textOf(result)).toContain("terminal detached");
    } finally {
      await session.close();
    }
  });

  it("an approval adapter answering nothing usable denies the call", async () => {
    const { executed, agent } = actAgent("test.approval-garbage", false);
    const session = await openSession({
      agent,
      approval: approvalPlugin(async () => ({ decision: "yes please" }) as unknown as ToolApprovalAnswer),
    });
    try {
      const { events } = await drain(session.run("go"));
      const event = permissionEvents(events)[0];
      expect(event).toMatchObject({ decision: "deny", decidedBy: "approval" });
      expect(typeof event?.reason).toBe("string");
      expect(executed).toHaveLength(0);
    } finally {
      await session.close();
    }
  });

  it("hooks from several plugins are all consulted, in registration order", async () => {
    const order: string[] = [];
    const { executed, agent } = actAgent("test.order", false);
    const runner = await createNodeRunner({
      agent,
      permissions: "read-only",
      plugins: [
        plugin("first", (host) =>
          host.hooks.toolPermission(() => {
            order.push("first");
            return { decision: "allow", reason: "first allows" };
          }),
        ),
        plugin("second", (host) =>
          host.hooks.toolPermission(() => {
            order.push("second");
            return "defer";
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("go"));
      expect(order).toEqual(["first", "second"]);
      // A hook's allow relaxes even the read-only preset.
      expect(permissionEvents(events)[0]).toMatchObject({
        decision: "allow",
        decidedBy: "hook",
        reason: "first allows",
      });
      expect(executed).toHaveLength(1);
    } finally {
      await runner.close();
    }
  });

  it("each call of a batch is decided separately, with its own id and input", async () => {
    const seen: Array<{ id: string; input: JsonValue }> = [];
    const executed: JsonValue[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "act", input: { path: "allowed.txt" } },
          { name: "act", input: { path: "secret.txt" } },
        ],
      },
      { text: "done" },
    ]);
    const agent = defineAgent("test.batch", { model, tools: [actTool(false, executed)] });
    const runner = await createNodeRunner({
      agent,
      permissions: "full-access",
      plugins: [
        plugin("test.policy", (host) =>
          host.hooks.toolPermission((request) => {
            seen.push({ id: request.toolCallId, input: request.input });
            return (request.input as { path: string }).path.startsWith("secret")
              ? { decision: "deny", reason: "secret files are off limits" }
              : undefined;
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("go"));
      expect(seen).toEqual([
        { id: "call_1", input: { path: "allowed.txt" } },
        { id: "call_2", input: { path: "secret.txt" } },
      ]);
      expect(permissionEvents(events).map((event) => [event.toolCallId, event.decision, event.decidedBy])).toEqual([
        ["call_1", "allow", "preset"],
        ["call_2", "deny", "hook"],
      ]);
      expect(executed).toEqual([{ path: "allowed.txt" }]);
      const results = toolMessages(model.requests[1]?.messages ?? []);
      expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
        ["call_1", false],
        ["call_2", true],
      ]);
      expect(textOf(results[1])).toContain("secret files are off limits");
    } finally {
      await runner.close();
    }
  });
});
