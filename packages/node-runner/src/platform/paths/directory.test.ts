import { execFileSync } from "node:child_process";
import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { usePathsTestBed } from "../../../test/support/paths-fixture.ts";
import { readDirectory, resolveDirectory } from "./directory.js";
import { resolveEntry } from "./entry.js";

const bed = usePathsTestBed(async (bed) => {
  await mkdir(bed.inRoot("src"));
  await writeFile(bed.inRoot("src/b.ts"), "b");
  await writeFile(bed.inRoot("src/a.ts"), "aa");
  await writeFile(bed.inRoot("README.md"), "r");
  await symlink(bed.sandbox.evil, bed.inRoot("evil"));
  await symlink("src/a.ts", bed.inRoot("a-link"));
  execFileSync("mkfifo", [bed.inRoot("pipe")], { stdio: "pipe" });
});

describe("readDirectory", () => {
  it("lists the root sorted by UTF-8 bytes, with each entry's own kind", async () => {
    await writeFile(bed.inRoot("\u00e9.txt"), "");
    await writeFile(bed.inRoot("\u{1f600}.txt"), "");
    await writeFile(bed.inRoot("\uff5e.txt"), "");
    const entries = await readDirectory(await resolveDirectory(bed.root, "."));
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
    expect(await readDirectory(await resolveDirectory(bed.root, "src"))).toEqual([
      { name: "a.ts", path: "src/a.ts", kind: "file" },
      { name: "b.ts", path: "src/b.ts", kind: "file" },
    ]);
  });

  it("gives no path for a name that is not a valid workspace path", async () => {
    await writeFile(bed.inRoot("back\\slash"), "");
    await writeFile(bed.inRoot("new\nline"), "");
    const entries = await readDirectory(await resolveDirectory(bed.root, "."));
    expect(entries.filter((entry) => entry.path === undefined).map((entry) => entry.name)).toEqual([
      "back\\slash",
      "new\nline",
    ]);
  });

  it("fails with path_changed when the directory was swapped for a link after validation", async () => {
    const directory = await resolveDirectory(bed.root, "src");
    await rename(bed.inRoot("src"), bed.inRoot("src-moved"));
    await symlink(bed.sandbox.evil, bed.inRoot("src"));
    await expect(readDirectory(directory)).rejects.toMatchObject({ code: "path_changed" });
    expect(bed.log.calls.filter((call) => call.operation === "readdir")).toEqual([]);
  });

  it("takes only a directory resolved by resolveDirectory", async () => {
    await expect(readDirectory({ root: bed.root, path: "." })).rejects.toThrow(TypeError);
  });
});

describe("resolveDirectory", () => {
  it("does not follow a link, to a directory inside or outside (path_is_symlink)", async () => {
    await symlink("src", bed.inRoot("src-link"));
    await expect(resolveDirectory(bed.root, "src-link")).rejects.toMatchObject({ code: "path_is_symlink" });
    await expect(resolveDirectory(bed.root, "evil")).rejects.toMatchObject({
      code: "path_is_symlink",
      message: expect.stringContaining(bed.sandbox.evil),
    });
    await expect(resolveDirectory(bed.root, "evil/sub")).rejects.toMatchObject({ code: "path_through_symlink" });
  });

  it("refuses a file (not_a_directory), a missing path and an invalid one", async () => {
    await expect(resolveDirectory(bed.root, "README.md")).rejects.toMatchObject({ code: "not_a_directory" });
    await expect(resolveDirectory(bed.root, "pipe")).rejects.toMatchObject({ code: "not_a_directory" });
    await expect(resolveDirectory(bed.root, "lib")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveDirectory(bed.root, "..")).rejects.toMatchObject({ code: "path_invalid" });
    await expect(resolveDirectory(bed.root, "src/")).rejects.toMatchObject({ code: "path_invalid" });
  });
});

describe("resolveEntry", () => {
  it("describes an entry without following it", async () => {
    expect(await resolveEntry(bed.root, "src/a.ts")).toEqual({
      path: "src/a.ts",
      kind: "file",
      size: 2,
      linkTarget: undefined,
    });
    expect(await resolveEntry(bed.root, ".")).toMatchObject({ path: ".", kind: "directory" });
    expect(await resolveEntry(bed.root, "evil")).toMatchObject({ kind: "symlink", linkTarget: bed.sandbox.evil });
    expect(await resolveEntry(bed.root, "pipe")).toMatchObject({ kind: "other" });
  });

  it("walks ancestors as everywhere", async () => {
    await expect(resolveEntry(bed.root, "evil/secret.txt")).rejects.toMatchObject({ code: "path_through_symlink" });
    await expect(resolveEntry(bed.root, "src/none")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveEntry(bed.root, "README.md/x")).rejects.toMatchObject({ code: "not_a_directory" });
  });
});
