// review_workspace_files: checks before the reviewer is asked, an isolated one-turn child with
// no tools and no parent history, the guidance of the files, a bounded result with hashes, a
// model failure as an error, and a parent abort that drains the child first.
import { createHash } from "node:crypto";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { defineAgent, type JsonObject, type ModelRequest } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createWorkspaceInstructionsPlugin } from "../src/capabilities/workspace/instructions/instructions-plugin.js";
import {
  createWorkspaceReviewTool,
  type ReviewModel,
} from "../src/capabilities/workspace/review/review-workspace-files.js";
import { createNodeRunner } from "../src/index.js";
import { tempDirPerTest, textOf, toolMessages, workspaceLayout, writeTree } from "./support/index.ts";

const temp = tempDirPerTest("castellan-review-");
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

async function setup(parentSteps: Parameters<typeof scriptedModel>[0], reviewer: ReviewModel["runtime"]) {
  const layout = await workspaceLayout(temp.path);
  const instructions = createWorkspaceInstructionsPlugin({ rootDirectory: layout.rootUrl, record: () => undefined });
  const asked: { sessionId: string; runId: string }[] = [];
  const review = createWorkspaceReviewTool({
    rootDirectory: layout.rootUrl,
    instructions,
    model: (run) => {
      asked.push(run);
      return { specifier: "review/model", thinkingLevel: "high", runtime: reviewer };
    },
  });
  const parent = scriptedModel(parentSteps);
  const runner = await createNodeRunner({
    agent: defineAgent("test.review", { model: parent, instructions: "You are the parent.", tools: [review] }),
    permissions: "full-access",
    plugins: [instructions],
  });
  return { ...layout, parent, runner, asked, review };
}

const reviewCall = (input: JsonObject) => ({
  toolCalls: [{ id: "rv", name: "review_workspace_files", input }],
});

describe("review_workspace_files", () => {
  it("asks an isolated one-turn reviewer with no tools and no parent history, and returns hashes", async () => {
    const reviewer = scriptedModel([{ text: "Line 1: `a` is never used." }]);
    const { root, runner, parent, asked } = await setup(
      [reviewCall({ task: "Find unused code.", paths: ["src/a.ts"] }), { text: "thanks" }],
      reviewer,
    );
    await writeTree(root, { "AGENTS.md": "Prefer const.\n", "src/a.ts": "const a = 1;\n" });
    try {
      const session = await runner.createSession();
      const run = session.run("please review");
      await run.result;
      expect(reviewer.requests).toHaveLength(1);
      const request = reviewer.requests[0] as ModelRequest;
      expect(request.tools).toEqual([]);
      expect(request.messages).toHaveLength(1);
      const asked0 = JSON.stringify(request.messages);
      expect(asked0).toContain("Find unused code.");
      expect(asked0).toContain("const a = 1;");
      expect(asked0).toContain("Prefer const.");
      expect(asked0).not.toContain("please review");
      expect(request.system).not.toContain("You are the parent.");
      expect(asked).toEqual([{ sessionId: session.id, runId: run.id }]);
      const result = JSON.parse(textOf(toolMessages(parent.requests[1]?.messages)[0]));
      expect(result).toEqual({
        review: "Line 1: `a` is never used.",
        truncated: false,
        files: [{ path: "src/a.ts", bytes: 13, sha256: sha("const a = 1;\n") }],
        instructions: [{ path: "AGENTS.md", sha256: sha("Prefer const.\n") }],
        child: { sessionId: expect.any(String), runId: expect.any(String) },
        model: { specifier: "review/model", thinkingLevel: "high" },
      });
      expect(result.child.sessionId).not.toBe(session.id);
    } finally {
      await runner.close();
    }
  });

  it.each([
    [{ task: "", paths: ["a.ts"] }, /^Invalid input|^input_invalid/],
    [{ task: "x".repeat(8_193), paths: ["a.ts"] }, /^input_too_large: task is 8193 bytes/],
    [{ task: "t", paths: ["../a.ts"] }, /^path_invalid:/],
    [{ task: "t", paths: ["bin.dat"] }, /^file_not_utf8:/],
    [{ task: "t", paths: ["big.txt", "big2.txt"] }, /^input_too_large: The files are at least/],
    [{ task: "t", paths: ["missing.ts"] }, /^path_not_found:/],
  ])("refuses %j before the reviewer is asked", async (input, expected) => {
    const reviewer = scriptedModel([]);
    const { root, runner, parent } = await setup([reviewCall(input), { text: "ok" }], reviewer);
    await writeTree(root, {
      "a.ts": "a",
      "bin.dat": Uint8Array.from([0xff, 0xfe]),
      "big.txt": "x".repeat(70_000),
      "big2.txt": "y".repeat(70_000),
    });
    try {
      const session = await runner.createSession();
      await session.run("go").result;
      const message = toolMessages(parent.requests[1]?.messages)[0];
      expect(message?.isError).toBe(true);
      expect(textOf(message)).toMatch(expected);
      expect(reviewer.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });

  it("refuses when guidance for the files cannot be read", async () => {
    const reviewer = scriptedModel([]);
    const { root, runner, parent, outside } = await setup(
      [reviewCall({ task: "t", paths: ["a.ts"] }), { text: "ok" }],
      reviewer,
    );
    await writeTree(root, { "a.ts": "a" });
    await symlink(outside, join(root, "AGENTS.md"));
    try {
      const session = await runner.createSession();
      await session.run("go").result;
      expect(textOf(toolMessages(parent.requests[1]?.messages)[0])).toMatch(/^guidance_unavailable: .*"AGENTS\.md"/);
      expect(reviewer.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });

  it("reports a model failure as an error, never as a review", async () => {
    const reviewer = scriptedModel([{ error: new Error("provider down") }]);
    const { root, runner, parent } = await setup(
      [reviewCall({ task: "t", paths: ["a.ts"] }), { text: "ok" }],
      reviewer,
    );
    await writeTree(root, { "a.ts": "a" });
    try {
      const session = await runner.createSession();
      await session.run("go").result;
      const message = toolMessages(parent.requests[1]?.messages)[0];
      expect(message?.isError).toBe(true);
      expect(textOf(message)).toMatch(/^review_failed: .*provider down/);
    } finally {
      await runner.close();
    }
  });

  it("cuts a long review to keep the result within 16 KiB, and says so", async () => {
    const reviewer = scriptedModel([{ text: "é".repeat(20_000) }]);
    const { root, runner, parent } = await setup(
      [reviewCall({ task: "t", paths: ["a.ts"] }), { text: "ok" }],
      reviewer,
    );
    await writeTree(root, { "a.ts": "a" });
    try {
      const session = await runner.createSession();
      await session.run("go").result;
      const text = textOf(toolMessages(parent.requests[1]?.messages)[0]);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16_384);
      const result = JSON.parse(text);
      expect(result.truncated).toBe(true);
      expect(result.review.length).toBeGreaterThan(1_000);
    } finally {
      await runner.close();
    }
  });

  it("a parent abort closes and drains the child before the call settles", async () => {
    const reviewer = scriptedModel([{ hang: true }]);
    let childEnded = false;
    const watched: ReviewModel["runtime"] = {
      async *stream(request, call) {
        try {
          yield* reviewer.stream(request, call);
        } finally {
          childEnded = true;
        }
      },
    };
    const controller = new AbortController();
    const { root, runner, parent } = await setup([reviewCall({ task: "t", paths: ["a.ts"] })], watched);
    await writeTree(root, { "a.ts": "a" });
    try {
      const session = await runner.createSession();
      const run = session.run("go", { signal: controller.signal });
      const watcher = (async () => {
        while (reviewer.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        controller.abort();
      })();
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      await watcher;
      // The child's one request saw the abort: its stream ended before the parent's Run did.
      expect(childEnded).toBe(true);
      expect(reviewer.requests).toHaveLength(1);
      expect(parent.requests).toHaveLength(1);
    } finally {
      await runner.close();
    }
  });
});
