import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bindWorkspaceRoot, type WorkspaceRoot } from "../../../platform/paths/root.js";
import { enterIgnoreDirectory, ignoreScopeFor, isIgnored, rootIgnoreScope } from "./ignore-scope.js";

let base: string;
let directory: string;
let root: WorkspaceRoot;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "castellan-ignore-")));
  directory = join(base, "root");
  await mkdir(directory);
  root = await bindWorkspaceRoot(pathToFileURL(`${directory}/`));
});
afterEach(() => rm(base, { recursive: true, force: true }));

async function write(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(directory, path)), { recursive: true });
    await writeFile(join(directory, path), text);
  }
}

const file = (path: string) => path.split("/");

describe("ignore scopes", () => {
  it("apply the root's .gitignore and .git/info/exclude, the .gitignore winning", async () => {
    await write({ ".gitignore": "*.log\n!wanted.txt\n", ".git/info/exclude": "wanted.txt\nlocal/\n" });
    const scope = await rootIgnoreScope(root);
    expect(isIgnored(scope, file("a.log"), false)).toBe(true);
    expect(isIgnored(scope, file("wanted.txt"), false)).toBe(false);
    expect(isIgnored(scope, file("local"), true)).toBe(true);
    expect(isIgnored(scope, file("local"), false)).toBe(false);
    expect(isIgnored(scope, file("a.txt"), false)).toBe(false);
    expect(isIgnored(scope, file(".git"), true)).toBe(true);
  });

  it("apply a nested .gitignore relative to its directory, above the outer ones", async () => {
    await write({ ".gitignore": "*.log\n/top.txt\n", "src/.gitignore": "!debug.log\n/only-here.txt\n" });
    const outer = await rootIgnoreScope(root);
    const src = await enterIgnoreDirectory(root, outer, ["src"]);
    expect(isIgnored(src, file("src/a.log"), false)).toBe(true);
    expect(isIgnored(src, file("src/debug.log"), false)).toBe(false);
    expect(isIgnored(src, file("src/only-here.txt"), false)).toBe(true);
    expect(isIgnored(src, file("src/top.txt"), false)).toBe(false);
    expect(isIgnored(outer, file("top.txt"), false)).toBe(true);
    const deep = await enterIgnoreDirectory(root, src, ["src", "deep"]);
    expect(isIgnored(deep, file("src/deep/only-here.txt"), false)).toBe(false);
    expect(isIgnored(deep, file("src/deep/debug.log"), false)).toBe(false);
  });

  it("re-include a directory that a deeper .gitignore un-ignores", async () => {
    await write({ ".gitignore": "build/\n", "a/.gitignore": "!build/\n" });
    const a = await enterIgnoreDirectory(root, await rootIgnoreScope(root), ["a"]);
    expect(isIgnored(a, file("a/build"), true)).toBe(false);
    const build = await enterIgnoreDirectory(root, a, ["a", "build"]);
    expect(isIgnored(build, file("a/build/x.js"), false)).toBe(false);
  });

  it("load every rules file from the root down for a directory below it", async () => {
    await write({ ".gitignore": "*.tmp\n", "a/.gitignore": "*.bak\n", "a/b/.gitignore": "*.old\n" });
    const scope = await ignoreScopeFor(root, ["a", "b"]);
    for (const name of ["x.tmp", "x.bak", "x.old"]) expect(isIgnored(scope, file(`a/b/${name}`), false)).toBe(true);
    expect(isIgnored(scope, file("a/b/x.txt"), false)).toBe(false);
  });

  it("read no rules file that is a link, too large, or not a regular file", async () => {
    await write({ "elsewhere.txt": "*.txt\n", "big/.gitignore": `*.txt\n${"#".repeat(2_000)}\n` });
    await symlink(join(directory, "elsewhere.txt"), join(directory, ".gitignore"));
    await mkdir(join(directory, "dir/.gitignore"), { recursive: true });
    const scope = await rootIgnoreScope(root, { maxRulesFileBytes: 1_000 });
    expect(isIgnored(scope, file("a.txt"), false)).toBe(false);
    const big = await enterIgnoreDirectory(root, scope, ["big"]);
    expect(isIgnored(big, file("big/a.txt"), false)).toBe(false);
    const dir = await enterIgnoreDirectory(root, scope, ["dir"]);
    expect(isIgnored(dir, file("dir/a.txt"), false)).toBe(false);
  });

  it("read no .git/info/exclude through a linked .git", async () => {
    await mkdir(join(base, "other/info"), { recursive: true });
    await writeFile(join(base, "other/info/exclude"), "*.txt\n");
    await symlink(join(base, "other"), join(directory, ".git"));
    const scope = await rootIgnoreScope(root);
    expect(isIgnored(scope, file("a.txt"), false)).toBe(false);
  });

  it("open a directory's .gitignore only when its entries list one as a file", async () => {
    await write({ "a/.gitignore": "*.txt\n" });
    const outer = await rootIgnoreScope(root);
    const none = await enterIgnoreDirectory(root, outer, ["a"], []);
    expect(isIgnored(none, file("a/x.txt"), false)).toBe(false);
    const listed = await enterIgnoreDirectory(
      root,
      outer,
      ["a"],
      [{ name: ".gitignore", isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false }],
    );
    expect(isIgnored(listed, file("a/x.txt"), false)).toBe(true);
  });
});
