// Codex's apply_patch scenarios, read in place from ../shared/conformance/apply-patch/, applied
// by apply_workspace_patch to a real temporary root and compared as whole-tree snapshots
// (path -> bytes, directories too). The failing ones must be error results and leave the tree
// as their expected/ says (015 keeps the Add before its failing Update).
import { cp, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  sharedConformanceDir,
  sharedConformanceSkipNote,
  snapshotTree,
} from "../../../test-support/shared-conformance.ts";
import { callTool, tempDirPerTest } from "./support/index.ts";
import { workspaceToolsFor } from "./support/workspace-tools.ts";

const scenarioRoot = sharedConformanceDir("apply-patch");
const temp = tempDirPerTest("castellan-patch-conformance-");

/** The scenarios that must fail, with the code their result starts with. */
const failures: Readonly<Record<string, string>> = {
  "005_rejects_empty_patch": "patch_invalid",
  "006_rejects_missing_context": "context_not_found",
  "007_rejects_missing_file_delete": "path_not_found",
  "008_rejects_empty_update_hunk": "patch_invalid",
  "009_requires_existing_file_for_update": "path_not_found",
  "012_delete_directory_fails": "path_is_directory",
  "013_rejects_invalid_hunk_header": "patch_invalid",
};

describe.skipIf(scenarioRoot === undefined)(
  `apply_workspace_patch on the Codex scenarios${sharedConformanceSkipNote("apply-patch", scenarioRoot)}`,
  async () => {
    const names = scenarioRoot
      ? (await readdir(scenarioRoot, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name)
      : [];

    it("finds all 23 scenarios", () => {
      expect(names).toHaveLength(23);
    });

    it.each(names.sort())("%s", async (name) => {
      const scenario = join(scenarioRoot as string, name);
      const root = join(temp.path, "root");
      await mkdir(root);
      const input = join(scenario, "input");
      if ((await readdir(scenario)).includes("input")) await cp(input, root, { recursive: true });
      const patch = await readFile(join(scenario, "patch.txt"), "utf8");
      const { tools } = workspaceToolsFor(pathToFileURL(`${root}/`));
      const { result, text } = await callTool(tools.apply_workspace_patch as never, { patch });
      const code = failures[name];
      if (name.startsWith("015_")) {
        // Not atomic: the Add before the failing Update stays, and both are reported.
        expect(result.isError).toBe(true);
        expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual([
          expect.objectContaining({ operation: "added" }),
        ]);
        expect(text).toContain("do not apply them again");
      } else if (code) {
        expect(result.isError).toBe(true);
        expect(text.startsWith(`${code}:`), text).toBe(true);
      } else {
        expect(result.isError, text).toBe(false);
      }
      expect(await snapshotTree(root)).toEqual(await snapshotTree(join(scenario, "expected")));
    });
  },
);
