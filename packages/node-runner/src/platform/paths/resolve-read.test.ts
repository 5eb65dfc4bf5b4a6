import { link, mkdir, symlink, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { usePathsTestBed } from "../../../test/support/paths-fixture.ts";
import { readWholeFile } from "./open-file.js";
import { type ResolvedFile, resolveForRead } from "./resolve-read.js";

const bed = usePathsTestBed(async (bed) => {
  await mkdir(bed.inRoot("src"));
  await writeFile(bed.inRoot("src/main.ts"), "export {};\n");
});

/** The text of a file resolved for reading. */
async function text(file: ResolvedFile): Promise<string> {
  return new TextDecoder().decode(await readWholeFile(file, 1024));
}

describe("resolveForRead", () => {
  it("resolves a regular file inside the root", async () => {
    const file = await resolveForRead(bed.root, "src/main.ts");
    expect(file).toMatchObject({ path: "src/main.ts", filePath: "src/main.ts", throughLink: false, size: 11 });
    expect(Object.isFrozen(file)).toBe(true);
    expect(await text(file)).toBe("export {};\n");
  });

  it.each(["..", "a/../..", "./src/main.ts", "src/./main.ts", "/etc/passwd", "src//main.ts", "src/", "src\\main.ts"])(
    "refuses %j with path_invalid without touching the file system",
    async (path) => {
      await expect(resolveForRead(bed.root, path)).rejects.toMatchObject({ code: "path_invalid" });
      expect(bed.log.calls).toEqual([]);
    },
  );

  it("refuses the root and directories (path_is_directory)", async () => {
    await expect(resolveForRead(bed.root, ".")).rejects.toMatchObject({ code: "path_is_directory" });
    await expect(resolveForRead(bed.root, "src")).rejects.toMatchObject({ code: "path_is_directory" });
  });

  it("says which part of a missing path is missing and what to list", async () => {
    await expect(resolveForRead(bed.root, "src/nope.ts")).rejects.toMatchObject({
      code: "path_not_found",
      message: expect.stringContaining('List "src"'),
    });
    await expect(resolveForRead(bed.root, "lib/deep/x.ts")).rejects.toMatchObject({
      code: "path_not_found",
      message: expect.stringMatching(/"lib" does not exist.*List "\."/),
    });
  });

  it("refuses a file used as a directory (not_a_directory)", async () => {
    await expect(resolveForRead(bed.root, "src/main.ts/x")).rejects.toMatchObject({
      code: "not_a_directory",
      message: expect.stringContaining('"src/main.ts"'),
    });
  });

  it("keeps %2e%2e, fullwidth and one-dot-leader look-alikes inside the root", async () => {
    for (const name of ["%2e%2e", "\uff0e\uff0e", "\u2024\u2024"]) {
      await expect(resolveForRead(bed.root, `${name}/outside.txt`)).rejects.toMatchObject({ code: "path_not_found" });
      await mkdir(bed.inRoot(name));
      await writeFile(bed.inRoot(`${name}/outside.txt`), `inside ${name}`);
      expect(await text(await resolveForRead(bed.root, `${name}/outside.txt`))).toBe(`inside ${name}`);
    }
  });

  describe("a symbolic link as a parent", () => {
    it("is never followed, even to a directory inside the root, naming the segment", async () => {
      await symlink("src", bed.inRoot("alias"));
      await expect(resolveForRead(bed.root, "alias/main.ts")).rejects.toMatchObject({
        code: "path_through_symlink",
        message: expect.stringContaining('"alias" in "alias/main.ts" is a symbolic link (to "src")'),
      });
    });

    it("is never followed to a directory outside the root", async () => {
      await symlink(bed.sandbox.evil, bed.inRoot("evil"));
      await symlink("/etc", bed.inRoot("src/etc"));
      await expect(resolveForRead(bed.root, "evil/secret.txt")).rejects.toMatchObject({ code: "path_through_symlink" });
      await expect(resolveForRead(bed.root, "src/etc/passwd")).rejects.toMatchObject({
        code: "path_through_symlink",
        message: expect.stringContaining('"src/etc"'),
      });
    });
  });

  describe("a symbolic link as the last segment", () => {
    it("is followed to a regular file inside the root", async () => {
      await symlink("src/main.ts", bed.inRoot("main-link"));
      await symlink("main-link", bed.inRoot("chain"));
      const file = await resolveForRead(bed.root, "chain");
      expect(file).toMatchObject({ path: "chain", filePath: "src/main.ts", throughLink: true });
      expect(await text(file)).toBe("export {};\n");
    });

    it("is followed to a file reached through a linked directory inside the root", async () => {
      await symlink("src", bed.inRoot("alias"));
      await symlink("alias/main.ts", bed.inRoot("via-alias"));
      expect(await resolveForRead(bed.root, "via-alias")).toMatchObject({ filePath: "src/main.ts" });
    });

    it.each([
      ["an outside file", () => bed.sandbox.outsideFile],
      ["an outside file, relatively", () => "../outside.txt"],
      ["the prefix sibling root-evil/", () => "../root-evil/secret.txt"],
      ["an outside directory", () => bed.sandbox.evil],
      ["a /proc/self/root absolute path", () => `/proc/self/root${bed.sandbox.outsideFile}`],
      ["/etc/passwd", () => "/etc/passwd"],
    ])("is refused to %s (symlink_outside_root)", async (_what, target) => {
      await symlink(target(), bed.inRoot("escape"));
      await expect(resolveForRead(bed.root, "escape")).rejects.toMatchObject({
        code: "symlink_outside_root",
        message: expect.stringContaining(`to ${JSON.stringify(target())}`),
      });
    });

    it("is refused when a chain of links ends outside", async () => {
      await symlink("../root-evil", bed.inRoot("hop1"));
      await symlink("hop1/secret.txt", bed.inRoot("hop2"));
      await symlink("hop2", bed.inRoot("hop3"));
      await expect(resolveForRead(bed.root, "hop3")).rejects.toMatchObject({ code: "symlink_outside_root" });
    });

    it("is refused when it loops (symlink_loop)", async () => {
      await symlink("loop-b", bed.inRoot("loop-a"));
      await symlink("loop-a", bed.inRoot("loop-b"));
      await symlink("self", bed.inRoot("self"));
      await expect(resolveForRead(bed.root, "loop-a")).rejects.toMatchObject({ code: "symlink_loop" });
      await expect(resolveForRead(bed.root, "self")).rejects.toMatchObject({ code: "symlink_loop" });
    });

    it("is path_not_found when it dangles", async () => {
      await symlink("src/gone.ts", bed.inRoot("dangling"));
      await expect(resolveForRead(bed.root, "dangling")).rejects.toMatchObject({
        code: "path_not_found",
        message: expect.stringContaining('(to "src/gone.ts")'),
      });
    });

    it("is path_is_directory when it points to a directory inside, or to the root", async () => {
      await symlink("src", bed.inRoot("src-link"));
      await symlink(".", bed.inRoot("here"));
      await expect(resolveForRead(bed.root, "src-link")).rejects.toMatchObject({ code: "path_is_directory" });
      await expect(resolveForRead(bed.root, "here")).rejects.toMatchObject({ code: "path_is_directory" });
    });
  });

  it("reads a hard link to an outside file as the file it is (hard links are not paths)", async () => {
    await link(bed.sandbox.outsideFile, bed.inRoot("hard"));
    expect(await text(await resolveForRead(bed.root, "hard"))).toBe("outside secret\n");
  });
});
