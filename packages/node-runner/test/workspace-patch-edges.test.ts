// apply_workspace_patch at its edges: an abort between two files (receipts of what committed,
// the rest named, nothing applied twice), a file changed while approval waited, the file-count
// bound before permission, overwriting Adds and Moves, requireExistingParents, the exact shape
// of each receipt, a cut diagnostic after a committed file, and, through a real Runner under
// ask-on-write, which workspace tools are asked about and what the approval request carries.
import { lstat, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  defineAgent,
  isToolInputError,
  type JsonValue,
  type RunEvent,
  type Tool,
  type ToolResult,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createWorkspaceInstructionsPlugin } from "../src/capabilities/workspace/instructions/instructions-plugin.js";
import {
  createFileSessionStore,
  createNodeRunner,
  type NodeRunnerPlugin,
  type ToolApprovalRequest,
} from "../src/index.js";
import {
  addFile,
  approvalPlugin,
  callsOf,
  callTool,
  deleteFileSection,
  drain,
  loggingOperations,
  patchText,
  tempDirPerTest,
  textOf,
  toolContext,
  toolMessages,
  updateFile,
  workspaceLayout,
  writeTree,
} from "./support/index.ts";
import { toolsWith, workspaceToolsFor } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-patch-edges-");

async function setup(files: Record<string, string>, options: Parameters<typeof workspaceToolsFor>[1] = {}) {
  const layout = await workspaceLayout(temp.path);
  await writeTree(layout.root, files);
  const { tools } = workspaceToolsFor(layout.rootUrl, options);
  const patchTool = tools.apply_workspace_patch as Tool;
  const read = (path: string) => readFile(join(layout.root, path), "utf8");
  const exists = (path: string) =>
    lstat(join(layout.root, path)).then(
      () => true,
      () => false,
    );
  return { ...layout, patchTool, read, exists };
}

/** The code `admit` refused with, or `admitted`. */
async function admitCode(tool: Tool, input: JsonValue): Promise<string> {
  try {
    await tool.admit?.(input as never, toolContext({ toolName: tool.name }));
  } catch (error) {
    if (isToolInputError(error)) return error.code;
    throw error;
  }
  return "admitted";
}

function blocks(result: ToolResult): string[] {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`));
}

/** A patch that commits a.txt, is aborted (at a.txt's rename) before b.txt, and never reaches c.txt. */
async function abortedPatch() {
  const controller = new AbortController();
  const { operations, log } = loggingOperations((call) => {
    if (call.operation === "rename" && !controller.signal.aborted) controller.abort();
  });
  const place = await setup({ "a.txt": "a1\n", "b.txt": "b1\n", "c.txt": "c1\n" }, { operations });
  const patch = patchText(updateFile("a.txt", "a1", "a2"), updateFile("b.txt", "b1", "b2"), deleteFileSection("c.txt"));
  const { result } = await callTool(place.patchTool, { patch }, { signal: controller.signal });
  return { ...place, result, log };
}

describe("apply_workspace_patch edges", () => {
  it("an abort between two files: the committed file's receipts, the rest named, the disk shows only the first", async () => {
    const { result, log, read } = await abortedPatch();
    expect(result.isError).toBe(true);
    const [receipts, diagnostic] = blocks(result);
    expect(blocks(result)).toHaveLength(2);
    expect(JSON.parse(receipts as string)).toEqual([{ path: "a.txt", operation: "updated", edits: 1 }]);
    expect(diagnostic).toContain("aborted");
    expect(diagnostic).toContain('Not attempted: delete "c.txt".');
    expect(diagnostic).toContain("do not apply them again");
    expect(await read("a.txt")).toBe("a2\n");
    expect(await read("b.txt")).toBe("b1\n");
    expect(await read("c.txt")).toBe("c1\n");
    expect(callsOf(log, "rename")).toHaveLength(1);
    expect(callsOf(log, "unlink")).toEqual([]);
  });

  // Regression: the abort message once said "before this file" without naming it.
  it("an abort between two files names every file not written, the one it came before included", async () => {
    const { result } = await abortedPatch();
    expect(blocks(result)[1]).toContain('"b.txt"');
  });

  it("a file changed while approval waited: its Update fails (context_not_found) and nothing is written", async () => {
    const { patchTool, root, read, exists } = await setup({ "a.txt": "one\ntwo\n" });
    const input = { patch: patchText(updateFile("a.txt", "two", "2"), addFile("b.txt", "bee")) };
    const ctx = toolContext({ toolName: patchTool.name });
    const admitted = await patchTool.admit?.(input as never, ctx);
    expect(admitted?.admission).toEqual({
      files: [
        { path: "a.txt", operation: "update" },
        { path: "b.txt", operation: "add" },
      ],
    });
    await writeFile(join(root, "a.txt"), "one\nthree\n");
    const result = (await patchTool.execute(input as never, { ...ctx, admission: admitted?.admission })) as ToolResult;
    expect(result.isError).toBe(true);
    const [text] = blocks(result);
    expect(blocks(result)).toHaveLength(1);
    expect(text).toMatch(/^context_not_found: a\.txt: chunk 1 of 1/);
    expect(text).toContain('Not attempted: add "b.txt".');
    expect(text).toContain("Nothing was written.");
    expect(await read("a.txt")).toBe("one\nthree\n");
    expect(await exists("b.txt")).toBe(false);
  });

  it("a patch of maxPatchFiles + 1 files is refused before permission (too_many_files); maxPatchFiles is admitted", async () => {
    const { patchTool, root } = await setup({}, { limits: { maxPatchFiles: 5 } });
    const files = (count: number) => Array.from({ length: count }, (_, index) => addFile(`f${index}.txt`, `${index}`));
    expect(await admitCode(patchTool, { patch: patchText(...files(6)) })).toBe("too_many_files");
    expect(await admitCode(patchTool, { patch: patchText(...files(5)) })).toBe("admitted");
    // Execution checks again, whatever admitted it.
    const result = (await patchTool.execute({ patch: patchText(...files(6)) } as never, toolContext())) as ToolResult;
    expect(blocks(result)[0]).toMatch(/^too_many_files: The patch changes 6 files, over the limit of 5/);
    expect(await readdir(root)).toEqual([]);
  });

  it("an Add over an existing file and a Move onto one overwrite it, said in the admission and the receipts", async () => {
    const { patchTool, read, exists } = await setup({ "x.txt": "old x\n", "y.txt": "old y\n", "src.txt": "s1\n" });
    const patch = patchText(
      addFile("x.txt", "new x"),
      updateFile("src.txt", "s1", "s2", "y.txt"),
      addFile("fresh.txt", "f"),
    );
    const { admission, result } = await callTool(patchTool, { patch });
    expect(admission).toEqual({
      files: [
        { path: "x.txt", operation: "add", overwrites: true },
        { path: "src.txt", operation: "move", to: "y.txt", overwrites: true },
        { path: "fresh.txt", operation: "add" },
      ],
    });
    expect(result.isError).toBe(false);
    expect(JSON.parse(blocks(result)[0] as string)).toEqual([
      { path: "x.txt", operation: "added", overwritten: true },
      { path: "y.txt", operation: "moved", from: "src.txt", edits: 1, overwritten: true },
      { path: "fresh.txt", operation: "added" },
    ]);
    expect(await read("x.txt")).toBe("new x\n");
    expect(await read("y.txt")).toBe("s2\n");
    expect(await exists("src.txt")).toBe(false);
  });

  it("requireExistingParents refuses an Add or Move into a missing directory in admit (parent_missing)", async () => {
    const { patchTool, root } = await setup({ "m.txt": "m\n" }, { requireExistingParents: true });
    expect(await admitCode(patchTool, { patch: patchText(addFile("missing/deeper/a.txt", "a")) })).toBe(
      "parent_missing",
    );
    expect(await admitCode(patchTool, { patch: patchText(updateFile("m.txt", "m", "n", "missing/m.txt")) })).toBe(
      "parent_missing",
    );
    const { text } = await callTool(patchTool, { patch: patchText(addFile("missing/deeper/a.txt", "a")) });
    expect(text).toMatch(/^parent_missing: The directory "missing" for "missing\/deeper\/a\.txt" does not exist/);
    expect(await readdir(root)).toEqual(["m.txt"]);
  });

  it("by default an Add into a missing directory creates the directories", async () => {
    const { patchTool, read } = await setup({});
    const { result } = await callTool(patchTool, { patch: patchText(addFile("missing/deeper/a.txt", "a")) });
    expect(JSON.parse(blocks(result)[0] as string)).toEqual([{ path: "missing/deeper/a.txt", operation: "added" }]);
    expect(await read("missing/deeper/a.txt")).toBe("a\n");
  });

  it("receipts have exactly their fields: added, updated with its edits, moved with from and edits, deleted", async () => {
    const { patchTool, read, exists } = await setup({
      "u.txt": "one\ntwo\nthree\nfour\n",
      "m.txt": "m1\n",
      "d.txt": "d\n",
    });
    const twoChunks = ["*** Update File: u.txt", "@@", "-one", "+1", "@@", " three", "-four", "+4"].join("\n");
    const patch = patchText(
      addFile("new.txt", "n"),
      twoChunks,
      updateFile("m.txt", "m1", "m2", "moved/m.txt"),
      deleteFileSection("d.txt"),
    );
    const { admission, result } = await callTool(patchTool, { patch });
    expect(admission).toEqual({
      files: [
        { path: "new.txt", operation: "add" },
        { path: "u.txt", operation: "update" },
        { path: "m.txt", operation: "move", to: "moved/m.txt" },
        { path: "d.txt", operation: "delete" },
      ],
    });
    const receipts = JSON.parse(blocks(result)[0] as string);
    expect(receipts).toEqual([
      { path: "new.txt", operation: "added" },
      { path: "u.txt", operation: "updated", edits: 2 },
      { path: "moved/m.txt", operation: "moved", from: "m.txt", edits: 1 },
      { path: "d.txt", operation: "deleted" },
    ]);
    expect(receipts.map((receipt: object) => Object.keys(receipt).sort())).toEqual([
      ["operation", "path"],
      ["edits", "operation", "path"],
      ["edits", "from", "operation", "path"],
      ["operation", "path"],
    ]);
    expect(await read("u.txt")).toBe("1\ntwo\nthree\n4\n");
    expect(await read("moved/m.txt")).toBe("m2\n");
    expect(await exists("m.txt")).toBe(false);
    expect(await exists("d.txt")).toBe(false);
  });

  /** A patch that commits n.txt, then fails on a file whose long path makes the diagnostic long, before z.txt. */
  const longPath = `${`${"d".repeat(250)}/`.repeat(15)}x.txt`;
  const longFailure = async () => {
    const place = await setup({ [longPath]: "one\n" });
    const patch = patchText(addFile("n.txt", "n"), updateFile(longPath, "zzz", "yyy"), addFile("z.txt", "z"));
    const { result } = await callTool(place.patchTool, { patch });
    return { ...place, result };
  };

  it("a later failure after a committed file: the diagnostic is cut and says so; the receipts are whole JSON", async () => {
    const { result, read, exists } = await longFailure();
    expect(result.isError).toBe(true);
    const [receipts, diagnostic] = blocks(result) as [string, string];
    expect(JSON.parse(receipts)).toEqual([{ path: "n.txt", operation: "added" }]);
    expect(diagnostic.startsWith("The patch stopped part way. update ")).toBe(true);
    expect(diagnostic).toContain("failed: context_not_found: ");
    expect(diagnostic).toMatch(/\n\[diagnostic cut: \d+ more bytes not shown\]\nThe files in the receipts above/);
    expect(Buffer.byteLength(diagnostic)).toBeLessThanOrEqual(4_096);
    expect(await read("n.txt")).toBe("n\n");
    expect(await read(longPath)).toBe("one\n");
    expect(await exists("z.txt")).toBe(false);
  });

  // Regression: the cut once kept the head of the diagnostic and dropped its closing lines.
  it("a cut diagnostic still names the files not attempted and says not to apply the committed ones again", async () => {
    const { result } = await longFailure();
    const diagnostic = blocks(result)[1] as string;
    expect(diagnostic).toContain('add "z.txt"');
    expect(diagnostic).toContain("do not apply them again");
  });
});

describe("the workspace tools in a Runner under ask-on-write", () => {
  it("runs the read-only tools unasked, asks once per edit or patch with the full admission, and never asks about a refused patch", async () => {
    const layout = await workspaceLayout(temp.path);
    await writeTree(layout.root, { "a.txt": "alpha\n", "b.txt": "beta\n" });
    const asked: ToolApprovalRequest[] = [];
    const instructions = createWorkspaceInstructionsPlugin({ rootDirectory: layout.rootUrl, record: () => undefined });
    const goodPatch = patchText(updateFile("b.txt", "beta", "BETA"), addFile("c/new.txt", "new"));
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "r1", name: "read_workspace_file", input: { path: "a.txt" } },
          { id: "l1", name: "list_workspace", input: { recursive: true } },
          { id: "s1", name: "search_workspace", input: { query: "beta" } },
        ],
      },
      {
        toolCalls: [
          { id: "e1", name: "edit_workspace_file", input: { path: "a.txt", expected: "alpha", replacement: "ALPHA" } },
        ],
      },
      { toolCalls: [{ id: "p1", name: "apply_workspace_patch", input: { patch: goodPatch } }] },
      {
        toolCalls: [
          { id: "p2", name: "apply_workspace_patch", input: { patch: patchText(addFile("../escape.txt", "out")) } },
        ],
      },
      { text: "done" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.workspace-ask", { model, tools: [...toolsWith(layout.rootUrl, instructions)] }),
      permissions: "ask-on-write",
      plugins: [
        instructions,
        approvalPlugin(async (request) => {
          asked.push(request);
          return { decision: "allow" };
        }),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("work"));
      expect(error).toBeUndefined();
      expect(asked.map((request) => request.toolCallId)).toEqual(["e1", "p1"]);
      expect(asked[0]).toMatchObject({
        toolName: "edit_workspace_file",
        readOnly: false,
        admission: { files: [{ path: "a.txt", operation: "update" }] },
      });
      expect(asked[1]?.admission).toEqual({
        files: [
          { path: "b.txt", operation: "update" },
          { path: "c/new.txt", operation: "add" },
        ],
      });
      const permissions = events.filter(
        (event): event is Extract<RunEvent, { kind: "tool-permission" }> => event.kind === "tool-permission",
      );
      const decided = Object.fromEntries(
        permissions.map((event) => [event.toolCallId, `${event.decision} by ${event.decidedBy}`]),
      );
      expect(decided).toEqual({
        r1: "allow by preset",
        l1: "allow by preset",
        s1: "allow by preset",
        e1: "allow by approval",
        p1: "allow by approval",
      });
      expect(permissions).toHaveLength(5);
      // The refused patch reached no permission stage and never ran.
      expect(
        events
          .filter((event) => event.kind === "tool-start")
          .map((event) => (event as { toolCallId: string }).toolCallId),
      ).not.toContain("p2");
      const results = Object.fromEntries(
        model.requests
          .flatMap((request) => toolMessages(request.messages))
          .map((message) => [message.toolCallId, message]),
      );
      for (const id of ["r1", "l1", "s1", "e1", "p1"]) expect(results[id]?.isError, textOf(results[id])).toBe(false);
      expect(results.p2?.isError).toBe(true);
      expect(textOf(results.p2)).toMatch(/^path_invalid: /);
      expect(JSON.parse(textOf(results.s1)).hits).toEqual([{ path: "b.txt", line: 1, text: "beta" }]);
      expect(await readFile(join(layout.root, "a.txt"), "utf8")).toBe("ALPHA\n");
      expect(await readFile(join(layout.root, "b.txt"), "utf8")).toBe("BETA\n");
      expect(await readFile(join(layout.root, "c/new.txt"), "utf8")).toBe("new\n");
      expect(await readdir(temp.path)).toEqual(["outside.txt", "root", "root-evil"]);
      await session.close();
    } finally {
      await runner.close();
    }
  });
});

describe("a patch's approval across a restart", () => {
  it("keeps the admission in the saved request: the reopened Session shows which files it touches", async () => {
    const layout = await workspaceLayout(temp.path);
    await writeTree(layout.root, { "a.txt": "one\n" });
    const directory = join(temp.path, "sessions");
    const patch = patchText(updateFile("a.txt", "one", "two"), addFile("b.txt", "b"));
    const open = async (steps: Parameters<typeof scriptedModel>[0], approval: NodeRunnerPlugin) => {
      const instructions = createWorkspaceInstructionsPlugin({
        rootDirectory: layout.rootUrl,
        record: () => undefined,
      });
      const agent = defineAgent("test.patch-restart", {
        model: scriptedModel(steps),
        tools: [...toolsWith(layout.rootUrl, instructions)],
      });
      return createNodeRunner({
        agent,
        permissions: "ask-on-write",
        plugins: [
          instructions,
          approval,
          { name: "store", apply: (host) => host.registerSessionStore(createFileSessionStore({ directory })) },
        ],
      });
    };
    let asked!: () => void;
    const askedPromise = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const first = await open(
      [{ toolCalls: [{ id: "p1", name: "apply_workspace_patch", input: { patch } }] }],
      approvalPlugin(
        (_request, { signal }) =>
          new Promise((_resolve, reject) => {
            asked();
            signal.addEventListener("abort", () => reject(signal.reason));
          }),
      ),
    );
    const controller = new AbortController();
    const session = await first.createSession({ id: "patch" });
    const run = session.run("patch it", { signal: controller.signal });
    await askedPromise;
    controller.abort();
    await run.result.catch(() => undefined);
    await first.close();

    const second = await open(
      [{ text: "patched" }],
      approvalPlugin(async () => ({ decision: "deny" })),
    );
    try {
      const reopened = await second.createSession({ id: "patch" });
      const admission = {
        files: [
          { path: "a.txt", operation: "update" },
          { path: "b.txt", operation: "add" },
        ],
      };
      expect(reopened.pendingApprovals()).toMatchObject([
        { toolCallId: "p1", toolName: "apply_workspace_patch", admission },
      ]);
      await reopened.answerApproval("p1", { decision: "allow" });
      expect((await reopened.resume().result).text).toBe("patched");
      expect(await readFile(join(layout.root, "a.txt"), "utf8")).toBe("two\n");
      expect(await readFile(join(layout.root, "b.txt"), "utf8")).toBe("b\n");
    } finally {
      await second.close();
    }
  });
});
