// A tool's own `admit` check: after schema validation, before any permission question; what it
// returns reaches hooks, approval, the saved request and `execute`; a refusal asks nobody.
import {
  DeclarationError,
  defineAgent,
  defineTool,
  type JsonValue,
  type RunEvent,
  type ToolAdmitContext,
  type ToolContext,
  ToolInputError,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createMemorySessionStore,
  createNodeRunner,
  openSession,
  type ToolApprovalRequest,
  type ToolPermissionRequest,
} from "../src/index.js";
import { formatApprovalPrompt } from "../src/kernel/approval/terminal-approval.js";
import { approvalPlugin, drain, plugin, textOf, toolMessages } from "./support/index.ts";

const schema = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
  additionalProperties: false,
} as const;

interface Seen {
  order: string[];
  admitContexts: ToolAdmitContext[];
  executed: { input: JsonValue; admission: JsonValue | undefined }[];
}

/** A `write` tool whose admit is `admit`, recording the order of admit, hooks and execute. */
function writeTool(seen: Seen, admit: (input: { path: string }, ctx: ToolAdmitContext) => unknown) {
  return defineTool({
    name: "write",
    description: "Write a file",
    inputSchema: schema,
    admit: (input: { path: string }, ctx: ToolAdmitContext) => {
      seen.order.push("admit");
      seen.admitContexts.push(ctx);
      return admit(input, ctx) as never;
    },
    execute: (input: JsonValue, ctx: ToolContext) => {
      seen.order.push("execute");
      seen.executed.push({ input, admission: ctx.admission });
      return "written";
    },
  });
}

function newSeen(): Seen {
  return { order: [], admitContexts: [], executed: [] };
}

const kinds = (events: readonly RunEvent[]) => events.map((event) => event.kind);

describe("a tool's admit", () => {
  it("runs before the hooks; its input and admission reach hooks, approval, execute and the receipt", async () => {
    const seen = newSeen();
    const hookRequests: ToolPermissionRequest[] = [];
    const asked: ToolApprovalRequest[] = [];
    const tool = writeTool(seen, ({ path }) => ({
      input: { path: path.trim() },
      admission: { files: [{ path: path.trim(), operation: "update" }] },
    }));
    const model = scriptedModel([
      { toolCalls: [{ id: "w1", name: "write", input: { path: " a.txt " } }] },
      { text: "ok" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.admit", { model, tools: [tool] }),
      plugins: [
        plugin("test.hook", (host) =>
          host.hooks.toolPermission((request) => {
            seen.order.push("hook");
            hookRequests.push(request);
            return "ask";
          }),
        ),
        approvalPlugin(async (request) => {
          seen.order.push("approval");
          asked.push(request);
          return { decision: "allow" };
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("write it"));
      expect(error).toBeUndefined();
      expect(seen.order).toEqual(["admit", "hook", "approval", "execute"]);
      const admission = { files: [{ path: "a.txt", operation: "update" }] };
      expect(hookRequests[0]).toMatchObject({ input: { path: "a.txt" }, admission });
      expect(asked[0]).toMatchObject({ input: { path: "a.txt" }, admission });
      expect(seen.executed).toEqual([{ input: { path: "a.txt" }, admission }]);
      expect(Object.isFrozen(seen.executed[0]?.admission)).toBe(true);
      const start = events.find((event) => event.kind === "tool-start");
      expect(start).toMatchObject({ input: { path: "a.txt" } });
      const context = seen.admitContexts[0];
      expect(context).toMatchObject({ sessionId: session.id, toolCallId: "w1", agent: { id: "test.admit" } });
      expect(context?.runId).toBe(start?.runId);
      expect(context?.signal).toBeInstanceOf(AbortSignal);
      expect(context?.sandbox).toBeUndefined();
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it("a ToolInputError settles the call with its code; no hook, approval, tool-permission or tool-start", async () => {
    const seen = newSeen();
    const tool = writeTool(seen, ({ path }) => {
      throw new ToolInputError("path_invalid", `"${path}" leaves the root; give a path inside it.`);
    });
    const model = scriptedModel([{ toolCalls: [{ name: "write", input: { path: "../x" } }] }, { text: "ok" }]);
    let hooks = 0;
    let approvals = 0;
    const runner = await createNodeRunner({
      agent: defineAgent("test.admit", { model, tools: [tool] }),
      plugins: [
        plugin("test.hook", (host) =>
          host.hooks.toolPermission(() => {
            hooks++;
            return "allow";
          }),
        ),
        approvalPlugin(async () => {
          approvals++;
          return { decision: "allow" };
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("write it"));
      expect(hooks).toBe(0);
      expect(approvals).toBe(0);
      expect(seen.order).toEqual(["admit"]);
      expect(kinds(events)).not.toContain("tool-permission");
      expect(kinds(events)).not.toContain("tool-start");
      const end = events.find((event) => event.kind === "tool-end");
      expect(end).toMatchObject({ result: { isError: true } });
      const message = toolMessages(model.requests[1]?.messages)[0];
      expect(message?.isError).toBe(true);
      expect(textOf(message)).toBe('path_invalid: "../x" leaves the root; give a path inside it.');
      await session.close();
    } finally {
      await runner.close();
    }
  });

  it.each([
    [
      "a plain throw",
      () => {
        throw new Error("no such branch");
      },
      'Tool "write" refused the call: no such branch',
    ],
    ["no admission", () => ({ input: { path: "b" } }), "its admit returned no admission"],
    ["an admission that is not JSON", () => ({ admission: { when: new Date() } }), "is not JSON"],
    ["a replaced input that breaks the schema", () => ({ input: { path: 7 }, admission: {} }), "is invalid"],
    [
      "an async refusal",
      async () => {
        throw new ToolInputError("guidance_pending", "read AGENTS.md first");
      },
      "guidance_pending: read AGENTS.md first",
    ],
  ])("%s settles the call as an error result without running it", async (_name, admit, expected) => {
    const seen = newSeen();
    const model = scriptedModel([{ toolCalls: [{ name: "write", input: { path: "a" } }] }, { text: "ok" }]);
    const session = await openSession({
      agent: defineAgent("test.admit", { model, tools: [writeTool(seen, admit)] }),
      permissions: "full-access",
    });
    try {
      await session.run("write it").result;
      expect(seen.order).toEqual(["admit"]);
      const message = toolMessages(model.requests[1]?.messages)[0];
      expect(message?.isError).toBe(true);
      expect(textOf(message)).toContain(expected);
    } finally {
      await session.close();
    }
  });

  it("runs again on resume, and the reopened approval shows the saved admission", async () => {
    const store = createMemorySessionStore();
    const seen = newSeen();
    let version = 1;
    const tool = writeTool(seen, ({ path }) => ({ admission: { path, version: version++ } }));
    const model = scriptedModel([{ toolCalls: [{ id: "w1", name: "write", input: { path: "a" } }] }, { text: "ok" }]);
    const agent = defineAgent("test.admit", { model, tools: [tool] });
    // The first process stops while a person is asked.
    let asked!: () => void;
    const askedPromise = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const first = await openSession({
      agent,
      id: "admit-resume",
      store,
      approval: approvalPlugin(
        (_request, { signal }) =>
          new Promise((_resolve, reject) => {
            asked();
            signal.addEventListener("abort", () => reject(signal.reason));
          }),
      ),
    });
    const controller = new AbortController();
    const run = first.run("write it", { signal: controller.signal });
    await askedPromise;
    controller.abort();
    await run.result.catch(() => undefined);
    await first.close();

    const second = await openSession({ agent, id: "admit-resume", store, permissions: "full-access" });
    try {
      expect(second.pendingApprovals()).toMatchObject([{ toolCallId: "w1", admission: { path: "a", version: 1 } }]);
      await second.answerApproval("w1", { decision: "allow" });
      await second.resume().result;
      expect(seen.order).toEqual(["admit", "admit", "execute"]);
      expect(seen.executed[0]?.admission).toEqual({ path: "a", version: 2 });
    } finally {
      await second.close();
    }
  });

  it("an abort while admit waits leaves the call without a receipt", async () => {
    const seen = newSeen();
    const controller = new AbortController();
    const tool = writeTool(
      seen,
      (_input, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => reject(new Error("stopped")));
          controller.abort();
        }),
    );
    const model = scriptedModel([{ toolCalls: [{ id: "w1", name: "write", input: { path: "a" } }] }]);
    const session = await openSession({
      agent: defineAgent("test.admit", { model, tools: [tool] }),
      permissions: "full-access",
    });
    try {
      const { events, error } = await drain(session.run("write it", { signal: controller.signal }));
      expect(error).toMatchObject({ code: "run_aborted" });
      expect(kinds(events)).not.toContain("tool-end");
      expect(seen.executed).toEqual([]);
      expect(session.interruptedRun()?.unsettled).toMatchObject([{ toolCallId: "w1", state: "not-started" }]);
    } finally {
      await session.close();
    }
  });

  it("is printed by terminalApproval", () => {
    const prompt = formatApprovalPrompt({
      agent: { id: "a" },
      sessionId: "s",
      runId: "r",
      turn: 1,
      toolCallId: "c",
      source: { kind: "agent" },
      toolName: "apply_workspace_patch",
      input: { patch: "..." },
      readOnly: false,
      title: "Apply a patch to src/a.ts",
      summary: "*** Begin Patch",
      description: "Apply a patch",
      admission: { files: [{ path: "src/a.ts", operation: "update" }] },
    });
    expect(prompt).toContain("admission:");
    expect(prompt).toContain('"path": "src/a.ts"');
  });

  it("must be a function when declared", () => {
    expect(() => defineTool({ name: "t", description: "", admit: 3 as never, execute: () => undefined })).toThrow(
      DeclarationError,
    );
  });

  it("ToolInputError refuses a code that is not snake case", () => {
    expect(() => new ToolInputError("Bad Code", "x")).toThrow(TypeError);
    expect(new ToolInputError("path_invalid", "x").resultText).toBe("path_invalid: x");
  });
});
