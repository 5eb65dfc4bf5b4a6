// list_workspace and the tool set: byte-ordered entries, depth-first recursive listing that
// skips .git and ignored paths and follows no link, stable bounded pages, and the factory's
// order, traits and refusals.
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  createRootBoundWorkspaceTools,
  createWorkspaceInstructionsPlugin,
  InvalidOptionsError,
  WorkspaceRootError,
} from "../src/index.js";
import { callTool, tempDirPerTest, workspaceLayout, writeTree } from "./support/index.ts";
import { workspaceToolsFor } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-list-");

async function setup(files: Record<string, string>, maxPageBytes?: number) {
  const layout = await workspaceLayout(temp.path);
  await writeTree(layout.root, files);
  const { tools } = workspaceToolsFor(layout.rootUrl, maxPageBytes ? { limits: { maxPageBytes } } : {});
  const list = (input: Record<string, unknown>) => callTool(tools.list_workspace as never, input as never);
  return { ...layout, list, tools };
}

describe("list_workspace", () => {
  it("lists one directory in byte order of name, with types and file sizes, links not followed", async () => {
    const { list, root, outside } = await setup({ "b.txt": "bb", "B.txt": "B", "a/x.ts": "x", "é.md": "e" });
    await symlink(outside, join(root, "link"));
    const { json } = await list({});
    expect(json()).toEqual({
      path: ".",
      entries: [
        { path: "B.txt", type: "file", bytes: 1 },
        { path: "a", type: "directory" },
        { path: "b.txt", type: "file", bytes: 2 },
        { path: "link", type: "symlink" },
        { path: "é.md", type: "file", bytes: 1 },
      ],
      truncated: false,
    });
  });

  it("lists recursively depth first, skipping .git, ignored paths and what is behind links", async () => {
    const { list, root, evil } = await setup({
      ".gitignore": "dist/\n*.log\n",
      ".git/HEAD": "ref: refs/heads/main\n",
      "dist/out.js": "x",
      "src/a.ts": "a",
      "src/debug.log": "l",
      "src/nested/.gitignore": "secret.txt\n!keep.log\n",
      "src/nested/secret.txt": "s",
      "src/nested/keep.log": "k",
      "src/nested/b.ts": "b",
    });
    await symlink(evil, join(root, "src/evil"));
    const { json } = await list({ recursive: true });
    expect(json().entries.map((entry: { path: string }) => entry.path)).toEqual([
      ".gitignore",
      "src",
      "src/a.ts",
      "src/evil",
      "src/nested",
      "src/nested/.gitignore",
      "src/nested/b.ts",
      "src/nested/keep.log",
    ]);
  });

  it("pages within maxPageBytes; the pages join to the whole listing and repeat on an unchanged tree", async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 60; index++) files[`dir${index % 4}/file-${String(index).padStart(3, "0")}.txt`] = "x";
    const { list } = await setup(files, 1_024);
    const all = async () => {
      const pages = [];
      let page = (await list({ recursive: true })).json();
      pages.push(page);
      while (page.truncated) {
        page = (await list({ recursive: true, offset: page.nextOffset })).json();
        pages.push(page);
      }
      return pages;
    };
    const pages = await all();
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(1_024);
    const paths = pages.flatMap((page) => page.entries.map((entry: { path: string }) => entry.path));
    expect(paths).toHaveLength(64);
    expect(new Set(paths).size).toBe(64);
    expect(await all()).toEqual(pages);
  });

  it("refuses a cursor of another call, a file, a linked directory and a path outside", async () => {
    const { list, root, evil } = await setup({ "a/1.txt": "1", "b/2.txt": "2", "f.txt": "f" }, 1_024);
    await symlink(evil, join(root, "out"));
    const first = (await list({ path: "a" })).json();
    expect(first.truncated).toBe(false);
    const { encodeCursor } = await import("../src/capabilities/workspace/tools/cursor.js");
    const forA = encodeCursor("list", { path: "a", recursive: false }, { after: "a/1.txt" });
    expect((await list({ path: "b", offset: forA })).text).toMatch(/^offset_invalid:/);
    expect((await list({ offset: "garbage" })).text).toMatch(/^offset_invalid:/);
    expect((await list({ path: "f.txt" })).text).toMatch(/^not_a_directory:/);
    expect((await list({ path: "out" })).text).toMatch(/^path_is_symlink:/);
    expect((await list({ path: "../root-evil" })).text).toMatch(/^path_invalid:/);
  });
});

describe("createRootBoundWorkspaceTools", () => {
  it("returns the five tools in order; the first three are read-only", async () => {
    const { tools } = await setup({});
    expect(Object.keys(tools)).toEqual([
      "list_workspace",
      "search_workspace",
      "read_workspace_file",
      "edit_workspace_file",
      "apply_workspace_patch",
    ]);
    expect(Object.values(tools).map((tool) => tool.readOnly)).toEqual([true, true, true, false, false]);
  });

  it("refuses a root that is no directory, and a plugin bound to another root", async () => {
    const layout = await workspaceLayout(temp.path);
    const other = join(temp.path, "other");
    await mkdir(other);
    const instructions = createWorkspaceInstructionsPlugin({ rootDirectory: layout.rootUrl, record: () => undefined });
    expect(() => createRootBoundWorkspaceTools({ root: pathToFileURL(layout.outside), instructions })).toThrow(
      WorkspaceRootError,
    );
    expect(() => createRootBoundWorkspaceTools({ root: "/not/a/url", instructions })).toThrow(WorkspaceRootError);
    expect(() => createRootBoundWorkspaceTools({ root: pathToFileURL(other), instructions })).toThrow(
      InvalidOptionsError,
    );
  });

  it("fails the first call with instructions_not_registered when the plugin was never registered", async () => {
    const layout = await workspaceLayout(temp.path);
    const instructions = createWorkspaceInstructionsPlugin({ rootDirectory: layout.rootUrl, record: () => undefined });
    const [list] = createRootBoundWorkspaceTools({ root: layout.rootUrl, instructions });
    const { text } = await callTool(list as never, {});
    expect(text).toMatch(/^instructions_not_registered:/);
  });
});
