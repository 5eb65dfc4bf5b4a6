// Codex's apply_patch scenarios (../shared/conformance/apply-patch/, third-party data read in
// place) run against this module's grammar and matcher: each patch is applied to an in-memory
// copy of the scenario's input/ tree and the result compared with its expected/ tree.
//
// The commit below (`commit`) is a stand-in written for this test only: Add overwrites, Delete
// needs an existing file, Move writes the target then removes the source, parent directories
// are made as needed, and a failing operation keeps the ones before it (scenario 015). The
// end-to-end test of the apply_workspace_patch tool, applying the same scenarios to a real
// directory, will replace this in-memory commit; what stays here is the check of the grammar
// and matcher against the data.
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isToolInputError, ToolInputError } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import {
  sharedConformanceDir,
  sharedConformanceSkipNote,
  snapshotTree,
  type TreeSnapshot,
} from "../../../../../../test-support/shared-conformance.ts";
import { applyChunks } from "./apply-chunks.js";
import { parsePatch } from "./parse.js";
import type { PatchOperation } from "./types.js";

const scenarioRoot = sharedConformanceDir("apply-patch");
const scenarios = scenarioRoot
  ? readdirSync(scenarioRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
  : [];

/** The scenarios that must fail, with the code of their failure; every other one must succeed. */
const failures: Readonly<Record<string, string>> = {
  "005_rejects_empty_patch": "patch_invalid",
  "006_rejects_missing_context": "context_not_found",
  "007_rejects_missing_file_delete": "file_missing",
  "008_rejects_empty_update_hunk": "patch_invalid",
  "009_requires_existing_file_for_update": "file_missing",
  "012_delete_directory_fails": "not_a_file",
  "013_rejects_invalid_hunk_header": "patch_invalid",
  "015_failure_after_partial_success_leaves_changes": "file_missing",
};

/** Reads the existing file at `path`; this test's own codes stand in for the tool's. */
function existingFile(tree: TreeSnapshot, path: string): Buffer {
  const entry = tree[path];
  if (entry === undefined) throw new ToolInputError("file_missing", `${path} does not exist.`);
  if (entry === "directory") throw new ToolInputError("not_a_file", `${path} is a directory.`);
  return entry;
}

function write(tree: TreeSnapshot, path: string, text: string): void {
  const parts = path.split("/");
  for (let depth = 1; depth < parts.length; depth++) tree[parts.slice(0, depth).join("/")] = "directory";
  tree[path] = Buffer.from(text, "utf8");
}

/** The in-memory stand-in for the tool's commit of one operation (see the top of the file). */
function commit(tree: TreeSnapshot, operation: PatchOperation): void {
  switch (operation.type) {
    case "add":
      write(tree, operation.path, operation.contents);
      return;
    case "delete":
      existingFile(tree, operation.path);
      delete tree[operation.path];
      return;
    case "update": {
      const original = existingFile(tree, operation.path).toString("utf8");
      const { text } = applyChunks(original, operation.chunks, { path: operation.path });
      const target = operation.moveTo ?? operation.path;
      write(tree, target, text);
      if (target !== operation.path) delete tree[operation.path];
      return;
    }
  }
}

/** Sorted like snapshotTree's result, so that `toEqual` also compares the listing order. */
function sorted(tree: TreeSnapshot): TreeSnapshot {
  return Object.fromEntries(Object.entries(tree).sort(([left], [right]) => (left < right ? -1 : 1)));
}

describe.skipIf(scenarioRoot === undefined)(
  `Codex apply_patch conformance scenarios, in memory${sharedConformanceSkipNote("apply-patch", scenarioRoot)}`,
  () => {
    it("finds all 23 scenarios, and every expected failure names one of them", () => {
      expect(scenarios).toHaveLength(23);
      for (const name of Object.keys(failures)) expect(scenarios).toContain(name);
    });

    it.each(scenarios)("%s", async (name) => {
      const directory = join(scenarioRoot!, name);
      const patch = await readFile(join(directory, "patch.txt"), "utf8");
      const input = await snapshotTree(join(directory, "input")).catch((error: NodeJS.ErrnoException) => {
        // 001 and 015 have no input/: they start from an empty tree.
        if (error.code === "ENOENT") return {};
        throw error;
      });
      const expected = await snapshotTree(join(directory, "expected"));
      const tree: TreeSnapshot = { ...input };
      let failure: unknown;
      try {
        // The whole patch parses before any operation commits, as in the tool.
        for (const operation of parsePatch(patch).operations) commit(tree, operation);
      } catch (error) {
        failure = error;
      }
      const code = failures[name];
      if (code === undefined) {
        expect(failure).toBeUndefined();
      } else {
        expect(isToolInputError(failure, code), `${name} should fail with ${code}; got ${String(failure)}`).toBe(true);
      }
      expect(sorted(tree)).toEqual(expected);
    });
  },
);
