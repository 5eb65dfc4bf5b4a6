import { link, lstat, mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type BeforeCall,
  callsOf,
  loggingOperations,
  makeSandbox,
  type OperationLog,
  pathsOutside,
  type Sandbox,
} from "../../../test/support/paths-fixture.ts";
import { deleteFile } from "./delete-file.js";
import { resolveForRead } from "./resolve-read.js";
import { resolveForWrite } from "./resolve-write.js";
import { bindWorkspaceRoot, type WorkspaceRoot } from "./root.js";

let sandbox: Sandbox;
let root: WorkspaceRoot;
let log: OperationLog;
let before: string[];
let hook: BeforeCall | undefined;

beforeEach(async () => {
  sandbox = await makeSandbox();
  hook = undefined;
  const logging = loggingOperations((call) => hook?.(call));
  log = logging.log;
  root = await bindWorkspaceRoot(sandbox.rootUrl, logging.operations);
  log.calls.length = 0;
  await mkdir(inRoot("dir"));
  await writeFile(inRoot("dir/a.txt"), "a\n");
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

describe("deleteFile", () => {
  it("unlinks a regular file and keeps its directory", async () => {
    await deleteFile(await resolveForWrite(root, "dir/a.txt"));
    await expect(lstat(inRoot("dir/a.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    expect((await lstat(inRoot("dir"))).isDirectory()).toBe(true);
    // Renamed to a unique name beside it first, then only that name is unlinked.
    const [rename] = callsOf(log, "rename").map((call) => call.paths);
    expect(rename?.[0]).toBe(inRoot("dir/a.txt"));
    expect(rename?.[1]).toMatch(/\/dir\/\.castellan-[0-9a-f]{16}\.deleted$/);
    expect(callsOf(log, "unlink").map((call) => call.paths)).toEqual([[rename?.[1]]]);
  });

  it("unlinks only the name in the root of a file hard-linked outside", async () => {
    await link(sandbox.outsideFile, inRoot("hard.txt"));
    await deleteFile(await resolveForWrite(root, "hard.txt"));
    expect(await readFile(sandbox.outsideFile, "utf8")).toBe("outside secret\n");
  });

  it("refuses a directory (path_is_directory) and a link (path_is_symlink), naming its target", async () => {
    await symlink(sandbox.outsideFile, inRoot("out-link"));
    await expect(resolveForWrite(root, "dir")).rejects.toMatchObject({ code: "path_is_directory" });
    await expect(resolveForWrite(root, "out-link")).rejects.toMatchObject({
      code: "path_is_symlink",
      message: expect.stringContaining(sandbox.outsideFile),
    });
    expect((await lstat(inRoot("out-link"))).isSymbolicLink()).toBe(true);
  });

  it("refuses a missing file (path_not_found) and a file behind a linked directory", async () => {
    await symlink(sandbox.evil, inRoot("evil"));
    await expect(resolveForWrite(root, "dir/none.txt")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveForWrite(root, "evil/secret.txt")).rejects.toMatchObject({ code: "path_through_symlink" });
  });

  it("takes only an existing target resolved for writing, once", async () => {
    await expect(deleteFile((await resolveForRead(root, "dir/a.txt")) as never)).rejects.toThrow("resolveForWrite");
    await expect(deleteFile({ ...(await resolveForWrite(root, "dir/a.txt")) })).rejects.toThrow(TypeError);
    const target = await resolveForWrite(root, "dir/a.txt");
    await deleteFile(target);
    await expect(deleteFile(target)).rejects.toThrow(TypeError);
    await expect(deleteFile(await resolveForWrite(root, "dir/new.txt", { create: true }))).rejects.toMatchObject({
      code: "path_not_found",
    });
  });

  it("fails with path_changed, deleting nothing, when the parent became a link meanwhile", async () => {
    await writeFile(join(sandbox.evil, "a.txt"), "evil a\n");
    before = await sandbox.outsideSnapshot();
    const target = await resolveForWrite(root, "dir/a.txt");
    await rename(inRoot("dir"), inRoot("dir-moved"));
    await symlink(sandbox.evil, inRoot("dir"));
    await expect(deleteFile(target)).rejects.toMatchObject({ code: "path_changed" });
    expect(callsOf(log, "unlink")).toEqual([]);
    expect(await readFile(inRoot("dir-moved/a.txt"), "utf8")).toBe("a\n");
  });

  it("fails with path_changed when the file was replaced meanwhile", async () => {
    const target = await resolveForWrite(root, "dir/a.txt");
    await writeFile(inRoot("b.txt"), "b\n");
    await rename(inRoot("b.txt"), inRoot("dir/a.txt"));
    await expect(deleteFile(target)).rejects.toMatchObject({ code: "path_changed" });
    expect(await readFile(inRoot("dir/a.txt"), "utf8")).toBe("b\n");
  });
});
