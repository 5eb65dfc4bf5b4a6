// Approval requests describe the call in the tool's own words: the workspace's edit shows its
// path and a unified diff, a patch its files and text, exec_command the command line and workdir;
// a tool without describeCall is `Call <name>`, and a failing describeCall falls back to it.
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { openSession, type ToolApprovalRequest, workspace } from "../src/index.js";
import { tempDirPerTest } from "./support/index.ts";
import { addFile, patchText } from "./support/patch-text.ts";

const temp = tempDirPerTest("castellan-approval-description-");

describe("approval request title and summary", () => {
  it("come from the built-in tools' describeCall, and default to Call <name>", async () => {
    const root = await realpath(temp.path);
    await mkdir(join(root, "src"));
    await writeFile(join(root, "src", "a.ts"), "const a = 1;\nconst b = 2;\n");
    const asked: ToolApprovalRequest[] = [];
    const plain = defineTool({ name: "plain", description: "A model-facing text", execute: () => "ok" });
    const broken = defineTool({
      name: "broken",
      description: "Broken",
      describeCall: () => {
        throw new Error("no words");
      },
      execute: () => "ok",
    });
    const session = await openSession({
      agent: defineAgent("test.describe", {
        model: scriptedModel([
          {
            toolCalls: [
              {
                id: "edit",
                name: "edit_workspace_file",
                input: { path: "src/a.ts", expected: "b = 2", replacement: "b = 3" },
              },
            ],
          },
          {
            toolCalls: [
              { id: "patch", name: "apply_workspace_patch", input: { patch: patchText(addFile("c.txt", "c")) } },
            ],
          },
          { toolCalls: [{ id: "run", name: "exec_command", input: { command: "echo hi", workdir: "src" } }] },
          {
            toolCalls: [
              { id: "plain", name: "plain", input: {} },
              { id: "broken", name: "broken", input: {} },
            ],
          },
          { text: "done" },
        ]),
        tools: [plain, broken],
        capabilities: [workspace({ root: pathToFileURL(`${root}/`), sandbox: "none", commands: { killGraceMs: 200 } })],
      }),
      approval: {
        name: "test.approval",
        apply: (host) =>
          host.registerApproval({
            request: async (request) => {
              asked.push(request);
              return { decision: "deny", reason: "only looking" };
            },
          }),
      },
    });
    try {
      await session.run("go").result;
    } finally {
      await session.close();
    }
    const byCall = new Map(asked.map((request) => [request.toolCallId, request]));
    expect(byCall.get("edit")?.title).toBe("Edit src/a.ts");
    expect(byCall.get("edit")?.summary).toContain("--- a/src/a.ts\n+++ b/src/a.ts");
    expect(byCall.get("edit")?.summary).toMatch(/-const b = 2;|-b = 2/);
    expect(byCall.get("edit")?.summary).toMatch(/\+b = 3/);
    expect(byCall.get("patch")).toMatchObject({ title: "Apply a patch to c.txt" });
    expect(byCall.get("patch")?.summary).toContain("*** Add File: c.txt");
    expect(byCall.get("run")).toMatchObject({ title: "Run a command: echo hi", summary: "$ echo hi\nin src" });
    expect(byCall.get("plain")).toMatchObject({ title: "Call plain", summary: "", description: "A model-facing text" });
    expect(byCall.get("broken")).toMatchObject({ title: "Call broken", summary: "" });
  });
});
