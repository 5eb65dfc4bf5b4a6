// readCommandReport, readWorkspaceReport and readChildAgentReport: a host reads the built-in
// tools' JSON reports typed, from a receipt or a tool-end event, never parsing text itself.
import { realpath } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool, type RunEvent, type ToolReceipt, type ToolResult } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  childAgent,
  createCommandSessionPlugin,
  createNodeRunner,
  readChildAgentReport,
  readCommandReport,
  readWorkspaceReport,
  ToolReportError,
} from "../src/index.js";
import { callTool, cleanupAfterEach, drain, tempDirPerTest, workspaceLayout, writeTree } from "./support/index.ts";
import { addFile, patchText, updateFile } from "./support/patch-text.ts";
import { workspaceToolsFor } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-reports-");
const cleanups = cleanupAfterEach();
const text = (value: string, isError = false): ToolResult => ({ content: [{ type: "text", text: value }], isError });

function toolEnds(events: readonly RunEvent[]) {
  return events.filter((event): event is Extract<RunEvent, { kind: "tool-end" }> => event.kind === "tool-end");
}

describe("readCommandReport", () => {
  it("reads exec_command's report from its tool-end event and from the saved receipt", async () => {
    const root = await realpath(temp.path);
    let receipts: readonly ToolReceipt[] = [];
    const agent = defineAgent("test.reports", {
      model: scriptedModel([
        { toolCalls: [{ id: "echo", name: "exec_command", input: { command: "printf hello; exit 3" } }] },
        { text: "done" },
      ]),
      tools: [hostTool("exec_command"), hostTool("command_session")],
      // A section sees the Session's receipts, as any tool or section of the agent does.
      instructions: {
        receipts: (ctx) => {
          receipts = ctx.toolCalls("exec_command");
          return "";
        },
      },
    });
    const runner = await createNodeRunner({
      agent,
      permissions: "full-access",
      plugins: [
        createCommandSessionPlugin({ workingDirectory: pathToFileURL(`${root}/`), environment: { inherit: "core" } }),
      ],
    });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    const { events, error } = await drain(session.run("go"));
    expect(error).toBeUndefined();
    const [end] = toolEnds(events);
    const report = readCommandReport(end as NonNullable<typeof end>);
    expect(report).toMatchObject({ type: "command-session-report", state: "terminal", outcome: "exit", exitCode: 3 });
    expect(report?.stdout.text).toBe("hello");
    const [receipt] = receipts;
    expect(receipt?.toolCallId).toBe("echo");
    expect(readCommandReport(receipt as ToolReceipt)).toEqual(report);
  });

  it("answers nothing for another tool or an error result, and refuses a result that is not a report", () => {
    expect(readCommandReport({ name: "read_workspace_file", result: text("{}") })).toBeUndefined();
    expect(readCommandReport({ toolName: "exec_command", result: text("denied: no", true) })).toBeUndefined();
    expect(() => readCommandReport({ name: "exec_command", result: text('{"type":"other"}') })).toThrow(
      ToolReportError,
    );
    expect(() => readCommandReport({ name: "command_session", result: text("not json") })).toThrow(
      expect.objectContaining({ code: "tool_report_invalid" }),
    );
  });
});

describe("readWorkspaceReport", () => {
  it("reads each file tool's page or receipt, and the files of a patch that stopped part way", async () => {
    const layout = await workspaceLayout(temp.path);
    await writeTree(layout.root, { "a.txt": "one\ntwo\n", "src/b.ts": "export const b = 1;\n" });
    const { tools } = workspaceToolsFor(layout.rootUrl, {});
    const call = async (name: string, input: Record<string, unknown>) => {
      const tool = tools[name as keyof typeof tools] as NonNullable<(typeof tools)[keyof typeof tools]>;
      const { result } = await callTool(tool, input as never);
      return readWorkspaceReport({ name, result });
    };
    expect(await call("read_workspace_file", { path: "a.txt" })).toMatchObject({
      tool: "read_workspace_file",
      page: { path: "a.txt", text: "one\ntwo\n", truncated: false },
    });
    const listed = await call("list_workspace", { path: "." });
    expect(listed?.tool === "list_workspace" && listed.page.entries.map((entry) => entry.path)).toEqual([
      "a.txt",
      "src",
    ]);
    const found = await call("search_workspace", { query: "const b" });
    expect(found?.tool === "search_workspace" && found.page.hits.map((hit) => hit.path)).toEqual(["src/b.ts"]);
    expect(await call("edit_workspace_file", { path: "a.txt", expected: "two", replacement: "2" })).toEqual({
      tool: "edit_workspace_file",
      receipt: { path: "a.txt", operation: "updated", edits: 1 },
    });
    expect(await call("apply_workspace_patch", { patch: patchText(addFile("c.txt", "new")) })).toEqual({
      tool: "apply_workspace_patch",
      receipts: [{ path: "c.txt", operation: "added" }],
      complete: true,
    });
    const partial = await call("apply_workspace_patch", {
      patch: patchText(addFile("d.txt", "d"), updateFile("missing.txt", "x", "y")),
    });
    expect(partial).toMatchObject({ tool: "apply_workspace_patch", receipts: [{ path: "d.txt" }], complete: false });
    expect(partial?.tool === "apply_workspace_patch" && partial.diagnostic).toMatch(/stopped part way/);
    // A refusal is an error result with no report.
    expect(await call("read_workspace_file", { path: "../outside" })).toBeUndefined();
  });

  it("answers nothing for another tool, and refuses a page without its fields", () => {
    expect(readWorkspaceReport({ name: "exec_command", result: text("{}") })).toBeUndefined();
    expect(() => readWorkspaceReport({ name: "list_workspace", result: text('{"path":"."}') })).toThrow(
      ToolReportError,
    );
  });
});

describe("readChildAgentReport", () => {
  it("reads a child's report, completed or not, and nothing from a call refused before it ran", async () => {
    const child = defineAgent("helper", { model: scriptedModel([{ text: "child answer" }]) });
    const parent = defineAgent("parent", {
      model: scriptedModel([
        { toolCalls: [{ id: "ask", name: "agent_helper", input: { task: "help" } }] },
        { toolCalls: [{ id: "empty", name: "agent_helper", input: { task: "" } }] },
        { text: "done" },
      ]),
      capabilities: [childAgent(child, { toolGrants: [] })],
    });
    const runner = await createNodeRunner({ agent: parent, permissions: "full-access" });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    const { events } = await drain(session.run("go"));
    const [asked, refused] = toolEnds(events);
    expect(readChildAgentReport(asked as NonNullable<typeof asked>)).toMatchObject({
      type: "child-agent-report",
      agentId: "helper",
      status: "completed",
      text: "child answer",
    });
    expect(readChildAgentReport(refused as NonNullable<typeof refused>)).toBeUndefined();
    expect(readChildAgentReport({ name: "exec_command", result: text("{}") })).toBeUndefined();
  });
});
