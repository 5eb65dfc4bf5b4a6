import { execFileSync } from "node:child_process";
import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  loggingOperations,
  makeSandbox,
  type OperationLog,
  pathsOutside,
  type Sandbox,
} from "../../../test/support/paths-fixture.ts";
import { readDirectory, resolveDirectory } from "./directory.js";
import { resolveEntry } from "./entry.js";
import { bindWorkspaceRoot, type WorkspaceRoot } from "./root.js";

let sandbox: Sandbox;
let root: WorkspaceRoot;
let log: OperationLog;
let before: string[];

beforeEach(async () => {
  sandbox = await makeSandbox();
  const logging = loggingOperations();
  log = logging.log;
  root = await bindWorkspaceRoot(sandbox.rootUrl, logging.operations);
  log.calls.length = 0;
  await mkdir(inRoot("src"));
  await writeFile(inRoot("src/b.ts"), "b");
  await writeFile(inRoot("src/a.ts"), "aa");
  await writeFile(inRoot("README.md"), "r");
  await symlink(sandbox.evil, inRoot("evil"));
  await symlink("src/a.ts", inRoot("a-link"));
  execFileSync("mkfifo", [inRoot("pipe")], { stdio: "pipe" });
  before = await sandbox.outsideSnapshot();
});

afterEach(async () => {
  try {
    expect(pathsOutside(log, sandbox.root)).toEqual([]);
    expect(await sandbox.outsideSnapshot()).toEqual(before);
  } finally {
    await sandbox.remove();
  }
});

function inRoot(path: string): string {
  return join(sandbox.root, path);
}

describe("readDirectory", () => {
  it("lists the root sorted by UTF-8 bytes, with each entry's own kind", async () => {
    await writeFile(inRoot("\u00e9.txt"), "");
    await writeFile(inRoot("\u{1f600}.txt"), "");
    await writeFile(inRoot("\uff5e.txt"), "");
    const entries = await readDirectory(await resolveDirectory(root, "."));
    expect(entries).toEqual([
      { name: "README.md", path: "README.md", kind: "file" },
      { name: "a-link", path: "a-link", kind: "symlink" },
      { name: "evil", path: "evil", kind: "symlink" },
      { name: "pipe", path: "pipe", kind: "other" },
      { name: "src", path: "src", kind: "directory" },
      { name: "\u00e9.txt", path: "\u00e9.txt", kind: "file" },
      // U+FF5E sorts before U+1F600 in UTF-8 bytes, though not in UTF-16 units.
      { name: "\uff5e.txt", path: "\uff5e.txt", kind: "file" },
      { name: "\u{1f600}.txt", path: "\u{1f600}.txt", kind: "file" },
    ]);
  });

  it("lists a subdirectory, with entry paths from the root", async () => {
    expect(await readDirectory(await resolveDirectory(root, "src"))).toEqual([
      { name: "a.ts", path: "src/a.ts", kind: "file" },
      { name: "b.ts", path: "src/b.ts", kind: "file" },
    ]);
  });

  it("gives no path for a name that is not a valid workspace path", async () => {
    await writeFile(inRoot("back\\slash"), "");
    await writeFile(inRoot("new\nline"), "");
    const entries = await readDirectory(await resolveDirectory(root, "."));
    expect(entries.filter((entry) => entry.path === undefined).map((entry) => entry.name)).toEqual([
      "back\\slash",
      "new\nline",
    ]);
  });

  it("fails with path_changed when the directory was swapped for a link after validation", async () => {
    const directory = await resolveDirectory(root, "src");
    await rename(inRoot("src"), inRoot("src-moved"));
    await symlink(sandbox.evil, inRoot("src"));
    await expect(readDirectory(directory)).rejects.toMatchObject({ code: "path_changed" });
    expect(log.calls.filter((call) => call.operation === "readdir")).toEqual([]);
  });

  it("takes only a directory resolved by resolveDirectory", async () => {
    await expect(readDirectory({ root, path: "." })).rejects.toThrow(TypeError);
  });
});

describe("resolveDirectory", () => {
  it("does not follow a link, to a directory inside or outside (path_is_symlink)", async () => {
    await symlink("src", inRoot("src-link"));
    await expect(resolveDirectory(root, "src-link")).rejects.toMatchObject({ code: "path_is_symlink" });
    await expect(resolveDirectory(root, "evil")).rejects.toMatchObject({
      code: "path_is_symlink",
      message: expect.stringContaining(sandbox.evil),
    });
    await expect(resolveDirectory(root, "evil/sub")).rejects.toMatchObject({ code: "path_through_symlink" });
  });

  it("refuses a file (not_a_directory), a missing path and an invalid one", async () => {
    await expect(resolveDirectory(root, "README.md")).rejects.toMatchObject({ code: "not_a_directory" });
    await expect(resolveDirectory(root, "pipe")).rejects.toMatchObject({ code: "not_a_directory" });
    await expect(resolveDirectory(root, "lib")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveDirectory(root, "..")).rejects.toMatchObject({ code: "path_invalid" });
    await expect(resolveDirectory(root, "src/")).rejects.toMatchObject({ code: "path_invalid" });
  });
});

describe("resolveEntry", () => {
  it("describes an entry without following it", async () => {
    expect(await resolveEntry(root, "src/a.ts")).toEqual({
      path: "src/a.ts",
      kind: "file",
      size: 2,
      linkTarget: undefined,
    });
    expect(await resolveEntry(root, ".")).toMatchObject({ path: ".", kind: "directory" });
    expect(await resolveEntry(root, "evil")).toMatchObject({ kind: "symlink", linkTarget: sandbox.evil });
    expect(await resolveEntry(root, "pipe")).toMatchObject({ kind: "other" });
  });

  it("walks ancestors as everywhere", async () => {
    await expect(resolveEntry(root, "evil/secret.txt")).rejects.toMatchObject({ code: "path_through_symlink" });
    await expect(resolveEntry(root, "src/none")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveEntry(root, "README.md/x")).rejects.toMatchObject({ code: "not_a_directory" });
  });
});
