// workspace({ root }) takes an absolute path string as well as a file: URL (issue 26, item 13);
// a relative path is refused with a typed error that says what to give instead.
import { realpath } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner, WorkspaceRootError, workspace } from "../src/index.js";
import { cleanupAfterEach, drain, tempDirPerTest, textOf, writeTree } from "./support/index.ts";

const temp = tempDirPerTest("castellan-root-option-");
const cleanups = cleanupAfterEach();

describe("workspace({ root })", () => {
  it("accepts an absolute path string, and a derived one, and reads through it", async () => {
    const root = await realpath(temp.path);
    await writeTree(root, { "a.txt": "through a path\n" });
    for (const given of [root, () => root]) {
      const model = scriptedModel([
        { toolCalls: [{ name: "read_workspace_file", input: { path: "a.txt" } }] },
        { text: "done" },
      ]);
      const capability = workspace({ root: given, sandbox: "none" });
      const runner = await createNodeRunner({
        agent: defineAgent("test.root-option", { model, capabilities: [capability] }),
        permissions: "full-access",
      });
      cleanups.push(() => runner.close());
      const session = cleanups.closeLater(await runner.createSession());
      const { events, error } = await drain(session.run("read"));
      expect(error).toBeUndefined();
      const end = events.find((event) => event.kind === "tool-end");
      expect(end?.kind === "tool-end" ? textOf(end.result) : "").toContain("through a path");
    }
    expect(() => workspace({ root: pathToFileURL(`${root}/`), sandbox: "none" })).not.toThrow();
  });

  it("refuses a relative path with workspace_root_invalid, saying to give an absolute one", () => {
    let caught: unknown;
    try {
      workspace({ root: "relative/dir", sandbox: "none" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WorkspaceRootError);
    expect(caught).toMatchObject({
      code: "workspace_root_invalid",
      message: expect.stringContaining("is a relative path; give an absolute path"),
    });
  });
});
