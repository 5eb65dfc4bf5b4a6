import { link, lstat, mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callsOf, usePathsTestBed } from "../../../test/support/paths-fixture.ts";
import { deleteFile } from "./delete-file.js";
import { resolveForRead } from "./resolve-read.js";
import { resolveForWrite } from "./resolve-write.js";
import { bindWorkspaceRoot } from "./root.js";

const bed = usePathsTestBed(async (bed) => {
  await mkdir(bed.inRoot("dir"));
  await writeFile(bed.inRoot("dir/a.txt"), "a\n");
});

describe("deleteFile", () => {
  it("unlinks a regular file and keeps its directory", async () => {
    await deleteFile(await resolveForWrite(bed.root, "dir/a.txt"));
    await expect(lstat(bed.inRoot("dir/a.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    expect((await lstat(bed.inRoot("dir"))).isDirectory()).toBe(true);
    // Renamed to a unique name beside it first, then only that name is unlinked.
    const [rename] = callsOf(bed.log, "rename").map((call) => call.paths);
    expect(rename?.[0]).toBe(bed.inRoot("dir/a.txt"));
    expect(rename?.[1]).toMatch(/\/dir\/\.castellan-[0-9a-f]{16}\.deleted$/);
    expect(callsOf(bed.log, "unlink").map((call) => call.paths)).toEqual([[rename?.[1]]]);
  });

  it("unlinks only the name in the root of a file hard-linked outside", async () => {
    await link(bed.sandbox.outsideFile, bed.inRoot("hard.txt"));
    await expect(resolveForWrite(bed.root, "hard.txt")).rejects.toMatchObject({ code: "path_protected" });
    const lifted = await bindWorkspaceRoot(bed.sandbox.rootUrl, bed.root.operations, { allowProtectedWrites: true });
    await deleteFile(await resolveForWrite(lifted, "hard.txt"));
    expect(await readFile(bed.sandbox.outsideFile, "utf8")).toBe("outside secret\n");
  });

  it("refuses a directory (path_is_directory) and a link (path_is_symlink), naming its target", async () => {
    await symlink(bed.sandbox.outsideFile, bed.inRoot("out-link"));
    await expect(resolveForWrite(bed.root, "dir")).rejects.toMatchObject({ code: "path_is_directory" });
    await expect(resolveForWrite(bed.root, "out-link")).rejects.toMatchObject({
      code: "path_is_symlink",
      message: expect.stringContaining(bed.sandbox.outsideFile),
    });
    expect((await lstat(bed.inRoot("out-link"))).isSymbolicLink()).toBe(true);
  });

  it("refuses a missing file (path_not_found) and a file behind a linked directory", async () => {
    await symlink(bed.sandbox.evil, bed.inRoot("evil"));
    await expect(resolveForWrite(bed.root, "dir/none.txt")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveForWrite(bed.root, "evil/secret.txt")).rejects.toMatchObject({ code: "path_through_symlink" });
  });

  it("takes only an existing target resolved for writing, once", async () => {
    await expect(deleteFile((await resolveForRead(bed.root, "dir/a.txt")) as never)).rejects.toThrow("resolveForWrite");
    await expect(deleteFile({ ...(await resolveForWrite(bed.root, "dir/a.txt")) })).rejects.toThrow(TypeError);
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    await deleteFile(target);
    await expect(deleteFile(target)).rejects.toThrow(TypeError);
    await expect(deleteFile(await resolveForWrite(bed.root, "dir/new.txt", { create: true }))).rejects.toMatchObject({
      code: "path_not_found",
    });
  });

  it("fails with path_changed, deleting nothing, when the parent became a link meanwhile", async () => {
    await writeFile(join(bed.sandbox.evil, "a.txt"), "evil a\n");
    await bed.snapshotOutside();
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    await rename(bed.inRoot("dir"), bed.inRoot("dir-moved"));
    await symlink(bed.sandbox.evil, bed.inRoot("dir"));
    await expect(deleteFile(target)).rejects.toMatchObject({ code: "path_changed" });
    expect(callsOf(bed.log, "unlink")).toEqual([]);
    expect(await readFile(bed.inRoot("dir-moved/a.txt"), "utf8")).toBe("a\n");
  });

  it("fails with path_changed when the file was replaced meanwhile", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    await writeFile(bed.inRoot("b.txt"), "b\n");
    await rename(bed.inRoot("b.txt"), bed.inRoot("dir/a.txt"));
    await expect(deleteFile(target)).rejects.toMatchObject({ code: "path_changed" });
    expect(await readFile(bed.inRoot("dir/a.txt"), "utf8")).toBe("b\n");
  });
});
