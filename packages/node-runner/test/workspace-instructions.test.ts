// AGENTS.md guidance through a real Runner: the root file in each Run's first request, nested
// files found by tool calls, an edit held back (guidance_pending, nobody asked) until its
// guidance was in a request, sources frozen per Run, the byte budget, and the record callback.
import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineAgent, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createWorkspaceInstructionsPlugin,
  guidanceTracker,
  type WorkspaceInstructionsReceipt,
} from "../src/capabilities/workspace/instructions/instructions-plugin.js";
import { createFileSessionStore, createNodeRunner, type ToolApprovalRequest } from "../src/index.js";
import {
  approvalPlugin,
  drain,
  tempDirPerTest,
  textOf,
  toolMessages,
  workspaceLayout,
  writeTree,
} from "./support/index.ts";
import { toolsWith } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-guidance-");
const sha256 = async (text: string) => {
  const { createHash } = await import("node:crypto");
  return createHash("sha256").update(text).digest("hex");
};

async function setup(
  steps: Parameters<typeof scriptedModel>[0],
  options: { maxBytes?: number; record?: (receipt: WorkspaceInstructionsReceipt) => void | Promise<void> } = {},
) {
  const layout = await workspaceLayout(temp.path);
  const receipts: WorkspaceInstructionsReceipt[] = [];
  const asked: ToolApprovalRequest[] = [];
  const instructions = createWorkspaceInstructionsPlugin({
    rootDirectory: layout.rootUrl,
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    record: options.record ?? ((receipt) => void receipts.push(receipt)),
  });
  const model = scriptedModel(steps);
  const agent = defineAgent("test.guidance", { model, tools: [...toolsWith(layout.rootUrl, instructions)] });
  const runner = await createNodeRunner({
    agent,
    permissions: "ask-on-write",
    plugins: [
      instructions,
      approvalPlugin(async (request) => {
        asked.push(request);
        return { decision: "allow" };
      }),
    ],
  });
  return { ...layout, model, runner, receipts, asked, instructions };
}

describe("workspace guidance", () => {
  it("carries the root AGENTS.md in the first request as context, never in history, and records it once", async () => {
    const rules = "Run the tests before you finish.\n";
    const { root, runner, model, receipts } = await setup([{ text: "hi" }]);
    await writeTree(root, { "AGENTS.md": rules });
    try {
      const session = await runner.createSession();
      await session.run("hello").result;
      const request = model.requests[0];
      expect(request?.context).toContain("### AGENTS.md\n\nRun the tests before you finish.");
      expect(JSON.stringify(request?.messages)).not.toContain("Run the tests");
      expect(receipts).toEqual([
        {
          sessionId: session.id,
          runId: expect.any(String),
          path: "AGENTS.md",
          bytes: rules.length,
          sha256: await sha256(rules),
          includedBytes: rules.length,
          truncated: false,
        },
      ]);
    } finally {
      await runner.close();
    }
  });

  it("finds nested guidance through a read, and holds an edit in its scope until a request carried it", async () => {
    const { root, runner, model, asked } = await setup([
      // The model edits lib/b.ts before it has seen lib/AGENTS.md: refused, nobody asked.
      {
        toolCalls: [
          { id: "e1", name: "edit_workspace_file", input: { path: "lib/b.ts", expected: "1", replacement: "2" } },
        ],
      },
      // The next request carries lib/AGENTS.md; the same edit now goes through (asked once).
      {
        toolCalls: [
          { id: "e2", name: "edit_workspace_file", input: { path: "lib/b.ts", expected: "1", replacement: "2" } },
        ],
      },
      // A read in src/ finds src/AGENTS.md for the next request.
      { toolCalls: [{ id: "r1", name: "read_workspace_file", input: { path: "src/a.ts" } }] },
      { text: "done" },
    ]);
    await writeTree(root, {
      "AGENTS.md": "root rules\n",
      "lib/AGENTS.md": "lib rules\n",
      "lib/b.ts": "export const b = 1;\n",
      "src/AGENTS.md": "src rules\n",
      "src/a.ts": "export const a = 1;\n",
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("work"));
      const first = toolMessages(model.requests[1]?.messages).at(-1);
      expect(textOf(first)).toMatch(/^guidance_pending: .*"lib\/AGENTS\.md"/);
      // The refused edit reached no permission stage at all; the read was allowed by the preset.
      const permissions = events.filter((e: RunEvent) => e.kind === "tool-permission");
      expect(permissions.map((e) => (e as { toolCallId: string }).toolCallId)).toEqual(["e2", "r1"]);
      expect(asked.map((request) => request.toolCallId)).toEqual(["e2"]);
      expect(model.requests[0]?.context).not.toContain("lib rules");
      expect(model.requests[1]?.context).toContain("### lib/AGENTS.md\n\nlib rules");
      expect(await readFile(join(root, "lib/b.ts"), "utf8")).toBe("export const b = 2;\n");
      // Root first, then in the order found.
      const last = model.requests[3]?.context ?? "";
      expect(last.indexOf("root rules")).toBeLessThan(last.indexOf("lib rules"));
      expect(last.indexOf("lib rules")).toBeLessThan(last.indexOf("src rules"));
      expect(model.requests[2]?.context).not.toContain("src rules");
    } finally {
      await runner.close();
    }
  });

  it("freezes each source for the Run and reads it again on the next Run", async () => {
    const { root, runner, model, receipts } = await setup([
      { toolCalls: [{ name: "read_workspace_file", input: { path: "AGENTS.md" } }] },
      { text: "one" },
      { text: "two" },
    ]);
    await writeTree(root, { "AGENTS.md": "version 1\n" });
    let changed = false;
    try {
      const session = await runner.createSession();
      const run = session.run("first");
      for await (const event of run) {
        if (event.kind === "tool-end" && !changed) {
          changed = true;
          await writeFile(join(root, "AGENTS.md"), "version 2\n");
        }
      }
      expect(model.requests[1]?.context).toContain("version 1");
      await session.run("second").result;
      expect(model.requests[2]?.context).toContain("version 2");
      expect(receipts.map((receipt) => receipt.sha256)).toEqual([
        await sha256("version 1\n"),
        await sha256("version 2\n"),
      ]);
    } finally {
      await runner.close();
    }
  });

  it("keeps the Run's total within maxBytes: the source crossing it is cut, later ones omitted, each named", async () => {
    const { root, runner, model, receipts } = await setup(
      [{ toolCalls: [{ name: "read_workspace_file", input: { path: "deep/x.ts" } }] }, { text: "ok" }],
      { maxBytes: 30 },
    );
    await writeTree(root, {
      "AGENTS.md": `${"r".repeat(20)}\n`,
      "deep/AGENTS.md": `${"é".repeat(10)}\n`,
      "deep/x.ts": "x",
    });
    // A third source, after the budget is spent.
    await writeTree(root, { "deep/more/AGENTS.md": "late\n" });
    try {
      const session = await runner.createSession();
      await session.run("go").result;
      const context = model.requests[1]?.context ?? "";
      expect(context).toContain(`### deep/AGENTS.md\n\n${"é".repeat(4)}\n\n[Cut: 13 of 21 bytes dropped`);
      expect(receipts.map(({ path, includedBytes, truncated }) => ({ path, includedBytes, truncated }))).toEqual([
        { path: "AGENTS.md", includedBytes: 21, truncated: false },
        { path: "deep/AGENTS.md", includedBytes: 8, truncated: true },
      ]);
    } finally {
      await runner.close();
    }
  });

  it("states an unreadable source instead of skipping it", async () => {
    const { root, runner, model, outside } = await setup([{ text: "ok" }]);
    await symlink(outside, join(root, "AGENTS.md"));
    try {
      const session = await runner.createSession();
      await session.run("go").result;
      expect(model.requests[0]?.context).toMatch(/### AGENTS\.md\n\n\[This guidance file could not be read: .*outside/);
      expect(model.requests[0]?.context).not.toContain("outside secret");
    } finally {
      await runner.close();
    }
  });

  it("reports a failing record callback as hook-failed and still sends the request", async () => {
    const { root, runner, model } = await setup([{ text: "ok" }], {
      record: async () => {
        throw new Error("the ledger is down");
      },
    });
    await writeTree(root, { "AGENTS.md": "rules\n" });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("go"));
      expect(error).toBeUndefined();
      expect(events.find((event) => event.kind === "hook-failed")).toMatchObject({
        hook: "castellan.workspace-instructions.record",
        error: { message: "the ledger is down" },
      });
      expect(model.requests[0]?.context).toContain("rules");
    } finally {
      await runner.close();
    }
  });

  it("keeps guidance out of the saved log", async () => {
    const layout = await workspaceLayout(temp.path);
    await writeTree(layout.root, { "AGENTS.md": "SECRET-GUIDANCE-TEXT\n" });
    const instructions = createWorkspaceInstructionsPlugin({ rootDirectory: layout.rootUrl, record: () => undefined });
    const directory = join(temp.path, "sessions");
    const runner = await createNodeRunner({
      agent: defineAgent("test.guidance-log", {
        model: scriptedModel([{ text: "ok" }]),
        tools: [...toolsWith(layout.rootUrl, instructions)],
      }),
      plugins: [
        instructions,
        { name: "store", apply: (host) => host.registerSessionStore(createFileSessionStore({ directory })) },
      ],
    });
    try {
      const session = await runner.createSession({ id: "log" });
      await session.run("go").result;
    } finally {
      await runner.close();
    }
    expect(await readFile(join(directory, "log.jsonl"), "utf8")).not.toContain("SECRET-GUIDANCE-TEXT");
  });

  it("drops a Session's guidance when it closes", async () => {
    const { root, runner, instructions } = await setup([{ text: "ok" }]);
    await writeTree(root, { "AGENTS.md": "rules\n" });
    try {
      const session = await runner.createSession({ id: "g" });
      const run = session.run("go");
      await run.result;
      const tracker = guidanceTracker(instructions);
      const during = tracker?.run("g", run.id);
      expect(tracker?.run("g", run.id)).toBe(during);
      await session.close();
      expect(tracker?.run("g", run.id)).not.toBe(during);
    } finally {
      await runner.close();
    }
  });
});
