import { link, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  loggingOperations,
  makeSandbox,
  type OperationLog,
  pathsOutside,
  type Sandbox,
} from "../../../test/support/paths-fixture.ts";
import { readWholeFile } from "./open-file.js";
import { type ResolvedFile, resolveForRead } from "./resolve-read.js";
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
  await mkdir(join(sandbox.root, "src"));
  await writeFile(join(sandbox.root, "src", "main.ts"), "export {};\n");
  before = await sandbox.outsideSnapshot();
});

afterEach(async () => {
  // Whatever a test did, nothing outside the root was passed to the file system or changed.
  expect(pathsOutside(log, sandbox.root)).toEqual([]);
  expect(await sandbox.outsideSnapshot()).toEqual(before);
  await sandbox.remove();
});

/** The text of a file resolved for reading. */
async function text(file: ResolvedFile): Promise<string> {
  return new TextDecoder().decode(await readWholeFile(file, 1024));
}

describe("resolveForRead", () => {
  it("resolves a regular file inside the root", async () => {
    const file = await resolveForRead(root, "src/main.ts");
    expect(file).toMatchObject({ path: "src/main.ts", filePath: "src/main.ts", throughLink: false, size: 11 });
    expect(Object.isFrozen(file)).toBe(true);
    expect(await text(file)).toBe("export {};\n");
  });

  it.each(["..", "a/../..", "./src/main.ts", "src/./main.ts", "/etc/passwd", "src//main.ts", "src/", "src\\main.ts"])(
    "refuses %j with path_invalid without touching the file system",
    async (path) => {
      await expect(resolveForRead(root, path)).rejects.toMatchObject({ code: "path_invalid" });
      expect(log.calls).toEqual([]);
    },
  );

  it("refuses the root and directories (path_is_directory)", async () => {
    await expect(resolveForRead(root, ".")).rejects.toMatchObject({ code: "path_is_directory" });
    await expect(resolveForRead(root, "src")).rejects.toMatchObject({ code: "path_is_directory" });
  });

  it("says which part of a missing path is missing and what to list", async () => {
    await expect(resolveForRead(root, "src/nope.ts")).rejects.toMatchObject({
      code: "path_not_found",
      message: expect.stringContaining('List "src"'),
    });
    await expect(resolveForRead(root, "lib/deep/x.ts")).rejects.toMatchObject({
      code: "path_not_found",
      message: expect.stringMatching(/"lib" does not exist.*List "\."/),
    });
  });

  it("refuses a file used as a directory (not_a_directory)", async () => {
    await expect(resolveForRead(root, "src/main.ts/x")).rejects.toMatchObject({
      code: "not_a_directory",
      message: expect.stringContaining('"src/main.ts"'),
    });
  });

  it("keeps %2e%2e, fullwidth and one-dot-leader look-alikes inside the root", async () => {
    for (const name of ["%2e%2e", "\uff0e\uff0e", "\u2024\u2024"]) {
      await expect(resolveForRead(root, `${name}/outside.txt`)).rejects.toMatchObject({ code: "path_not_found" });
      await mkdir(join(sandbox.root, name));
      await writeFile(join(sandbox.root, name, "outside.txt"), `inside ${name}`);
      expect(await text(await resolveForRead(root, `${name}/outside.txt`))).toBe(`inside ${name}`);
    }
  });

  describe("a symbolic link as a parent", () => {
    it("is never followed, even to a directory inside the root, naming the segment", async () => {
      await symlink("src", join(sandbox.root, "alias"));
      await expect(resolveForRead(root, "alias/main.ts")).rejects.toMatchObject({
        code: "path_through_symlink",
        message: expect.stringContaining('"alias" in "alias/main.ts" is a symbolic link (to "src")'),
      });
    });

    it("is never followed to a directory outside the root", async () => {
      await symlink(sandbox.evil, join(sandbox.root, "evil"));
      await symlink("/etc", join(sandbox.root, "src", "etc"));
      await expect(resolveForRead(root, "evil/secret.txt")).rejects.toMatchObject({ code: "path_through_symlink" });
      await expect(resolveForRead(root, "src/etc/passwd")).rejects.toMatchObject({
        code: "path_through_symlink",
        message: expect.stringContaining('"src/etc"'),
      });
    });
  });

  describe("a symbolic link as the last segment", () => {
    it("is followed to a regular file inside the root", async () => {
      await symlink("src/main.ts", join(sandbox.root, "main-link"));
      await symlink("main-link", join(sandbox.root, "chain"));
      const file = await resolveForRead(root, "chain");
      expect(file).toMatchObject({ path: "chain", filePath: "src/main.ts", throughLink: true });
      expect(await text(file)).toBe("export {};\n");
    });

    it("is followed to a file reached through a linked directory inside the root", async () => {
      await symlink("src", join(sandbox.root, "alias"));
      await symlink("alias/main.ts", join(sandbox.root, "via-alias"));
      expect(await resolveForRead(root, "via-alias")).toMatchObject({ filePath: "src/main.ts" });
    });

    it.each([
      ["an outside file", () => sandbox.outsideFile],
      ["an outside file, relatively", () => "../outside.txt"],
      ["the prefix sibling root-evil/", () => "../root-evil/secret.txt"],
      ["an outside directory", () => sandbox.evil],
      ["a /proc/self/root absolute path", () => `/proc/self/root${sandbox.outsideFile}`],
      ["/etc/passwd", () => "/etc/passwd"],
    ])("is refused to %s (symlink_outside_root)", async (_what, target) => {
      await symlink(target(), join(sandbox.root, "escape"));
      await expect(resolveForRead(root, "escape")).rejects.toMatchObject({
        code: "symlink_outside_root",
        message: expect.stringContaining(`to ${JSON.stringify(target())}`),
      });
    });

    it("is refused when a chain of links ends outside", async () => {
      await symlink("../root-evil", join(sandbox.root, "hop1"));
      await symlink("hop1/secret.txt", join(sandbox.root, "hop2"));
      await symlink("hop2", join(sandbox.root, "hop3"));
      await expect(resolveForRead(root, "hop3")).rejects.toMatchObject({ code: "symlink_outside_root" });
    });

    it("is refused when it loops (symlink_loop)", async () => {
      await symlink("loop-b", join(sandbox.root, "loop-a"));
      await symlink("loop-a", join(sandbox.root, "loop-b"));
      await symlink("self", join(sandbox.root, "self"));
      await expect(resolveForRead(root, "loop-a")).rejects.toMatchObject({ code: "symlink_loop" });
      await expect(resolveForRead(root, "self")).rejects.toMatchObject({ code: "symlink_loop" });
    });

    it("is path_not_found when it dangles", async () => {
      await symlink("src/gone.ts", join(sandbox.root, "dangling"));
      await expect(resolveForRead(root, "dangling")).rejects.toMatchObject({
        code: "path_not_found",
        message: expect.stringContaining('(to "src/gone.ts")'),
      });
    });

    it("is path_is_directory when it points to a directory inside, or to the root", async () => {
      await symlink("src", join(sandbox.root, "src-link"));
      await symlink(".", join(sandbox.root, "here"));
      await expect(resolveForRead(root, "src-link")).rejects.toMatchObject({ code: "path_is_directory" });
      await expect(resolveForRead(root, "here")).rejects.toMatchObject({ code: "path_is_directory" });
    });
  });

  it("reads a hard link to an outside file as the file it is (hard links are not paths)", async () => {
    await link(sandbox.outsideFile, join(sandbox.root, "hard"));
    expect(await text(await resolveForRead(root, "hard"))).toBe("outside secret\n");
  });
});
