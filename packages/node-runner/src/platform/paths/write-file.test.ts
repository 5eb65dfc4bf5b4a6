import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { chmod, link, lstat, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callsOf, usePathsTestBed } from "../../../test/support/paths-fixture.ts";
import type { WorkspaceOperations } from "./operations.js";
import { resolveForRead } from "./resolve-read.js";
import { resolveForWrite } from "./resolve-write.js";
import { bindWorkspaceRoot, type WorkspaceRoot } from "./root.js";
import { writeFileAtomically } from "./write-file.js";

const bed = usePathsTestBed(async (bed) => {
  await mkdir(bed.inRoot("dir"));
  await writeFile(bed.inRoot("dir/a.txt"), "old\n");
});

/** A directory's names, to see that no temporary file was left. */
async function names(path: string): Promise<string[]> {
  return (await readdir(path)).sort();
}

describe("writeFileAtomically", () => {
  it("replaces an existing file through a new inode, keeping its mode, and leaves no temporary file", async () => {
    await chmod(bed.inRoot("dir/a.txt"), 0o751);
    const oldIno = (await lstat(bed.inRoot("dir/a.txt"))).ino;
    const result = await writeFileAtomically(await resolveForWrite(bed.root, "dir/a.txt"), "new\n");
    expect(result).toEqual({ path: "dir/a.txt", bytes: 4, created: false, createdDirectories: [] });
    const stats = await lstat(bed.inRoot("dir/a.txt"));
    expect(stats.ino).not.toBe(oldIno);
    expect(stats.mode & 0o7777).toBe(0o751);
    expect(await readFile(bed.inRoot("dir/a.txt"), "utf8")).toBe("new\n");
    expect(await names(bed.inRoot("dir"))).toEqual(["a.txt"]);
  });

  it("writes the temporary file beside the target with O_EXCL, then renames it over", async () => {
    await writeFileAtomically(await resolveForWrite(bed.root, "dir/a.txt"), new Uint8Array([1, 2, 3]));
    const [created] = callsOf(bed.log, "open");
    expect(created?.paths[0]).toMatch(new RegExp(`^${bed.inRoot("dir")}/\\.castellan-[0-9a-f]{16}\\.tmp$`));
    expect((created?.flags ?? 0) & constants.O_EXCL).toBe(constants.O_EXCL);
    expect((created?.flags ?? 0) & constants.O_NOFOLLOW).toBe(constants.O_NOFOLLOW);
    expect(callsOf(bed.log, "rename")).toEqual([
      { operation: "rename", paths: [created?.paths[0], bed.inRoot("dir/a.txt")] },
    ]);
    expect(bed.log.bytesWritten).toBe(3);
  });

  it("writes every byte of a large file", async () => {
    const data = new Uint8Array(5 * 1024 * 1024).map((_, index) => index % 251);
    await writeFileAtomically(await resolveForWrite(bed.root, "dir/a.txt"), data);
    expect(Buffer.compare(await readFile(bed.inRoot("dir/a.txt")), Buffer.from(data))).toBe(0);
  });

  /** The bed's root bound again with protection lifted: hard-linked files are written then. */
  const lifted = () => bindWorkspaceRoot(bed.sandbox.rootUrl, bed.root.operations, { allowProtectedWrites: true });

  it("refuses a hard-linked target (path_protected) unless protection is lifted", async () => {
    await link(bed.inRoot("dir/a.txt"), bed.inRoot("b.txt"));
    await expect(resolveForWrite(bed.root, "dir/a.txt")).rejects.toMatchObject({
      code: "path_protected",
      message: expect.stringContaining('the rule "hard links"'),
    });
    await expect(resolveForWrite(await lifted(), "dir/a.txt")).resolves.toMatchObject({ exists: true });
  });

  it("leaves an outside file hard-linked to the target unchanged", async () => {
    await link(bed.sandbox.outsideFile, bed.inRoot("hard.txt"));
    const outside = await lstat(bed.sandbox.outsideFile);
    await writeFileAtomically(await resolveForWrite(await lifted(), "hard.txt"), "replaced\n");
    expect(await readFile(bed.inRoot("hard.txt"), "utf8")).toBe("replaced\n");
    expect(await readFile(bed.sandbox.outsideFile, "utf8")).toBe("outside secret\n");
    expect((await lstat(bed.sandbox.outsideFile)).ino).toBe(outside.ino);
  });

  it("leaves another hard link to the target, inside the root, unchanged", async () => {
    await link(bed.inRoot("dir/a.txt"), bed.inRoot("b.txt"));
    await writeFileAtomically(await resolveForWrite(await lifted(), "dir/a.txt"), "new\n");
    expect(await readFile(bed.inRoot("b.txt"), "utf8")).toBe("old\n");
  });

  it("creates a new file with at most mode 0o644", async () => {
    const result = await writeFileAtomically(await resolveForWrite(bed.root, "dir/new.txt", { create: true }), "n");
    expect(result).toMatchObject({ created: true, createdDirectories: [] });
    expect((await lstat(bed.inRoot("dir/new.txt"))).mode & 0o777 & ~0o644).toBe(0);
    expect(await readFile(bed.inRoot("dir/new.txt"), "utf8")).toBe("n");
  });

  it("creates missing parent directories inside the root, checking each", async () => {
    const target = await resolveForWrite(bed.root, "dir/x/y/z.txt", { create: true });
    expect(target.createsDirectories).toEqual(["dir/x", "dir/x/y"]);
    // Resolving plans; nothing is made until the write.
    await expect(lstat(bed.inRoot("dir/x"))).rejects.toMatchObject({ code: "ENOENT" });
    const result = await writeFileAtomically(target, "z");
    expect(result.createdDirectories).toEqual(["dir/x", "dir/x/y"]);
    expect(await readFile(bed.inRoot("dir/x/y/z.txt"), "utf8")).toBe("z");
    expect(callsOf(bed.log, "mkdir").map((call) => call.paths[0])).toEqual([
      bed.inRoot("dir/x"),
      bed.inRoot("dir/x/y"),
    ]);
  });

  it("refuses a missing parent with parent_missing when parents must exist", async () => {
    await expect(
      resolveForWrite(bed.root, "dir/x/y/z.txt", { create: true, requireExistingParents: true }),
    ).rejects.toMatchObject({ code: "parent_missing", message: expect.stringContaining('"dir/x"') });
    await expect(
      resolveForWrite(bed.root, "dir/z.txt", { create: true, requireExistingParents: true }),
    ).resolves.toMatchObject({ exists: false });
  });

  it("writes look-alike names as plain names inside the root", async () => {
    for (const name of ["%2e%2e", "\uff0e\uff0e", "\u2024\u2024"]) {
      await writeFileAtomically(await resolveForWrite(bed.root, `${name}/outside.txt`, { create: true }), name);
      expect(await readFile(bed.inRoot(`${name}/outside.txt`), "utf8")).toBe(name);
    }
  });

  it("is used once, and only with a target resolved for writing", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    await writeFileAtomically(target, "1");
    await expect(writeFileAtomically(target, "2")).rejects.toThrow(TypeError);
    await expect(writeFileAtomically({ ...(await resolveForWrite(bed.root, "dir/a.txt")) }, "3")).rejects.toThrow(
      TypeError,
    );
    const read = await resolveForRead(bed.root, "dir/a.txt");
    await expect(writeFileAtomically(read as never, "4")).rejects.toThrow("resolveForWrite");
    expect(await readFile(bed.inRoot("dir/a.txt"), "utf8")).toBe("1");
  });
});

describe("resolveForWrite", () => {
  it("refuses a link as the target, naming where it points (path_is_symlink)", async () => {
    await symlink(bed.sandbox.outsideFile, bed.inRoot("out-link"));
    await symlink("dir/a.txt", bed.inRoot("in-link"));
    await expect(resolveForWrite(bed.root, "out-link")).rejects.toMatchObject({
      code: "path_is_symlink",
      message: expect.stringContaining(JSON.stringify(bed.sandbox.outsideFile)),
    });
    await expect(resolveForWrite(bed.root, "in-link")).rejects.toMatchObject({
      code: "path_is_symlink",
      message: expect.stringContaining('(to "dir/a.txt")'),
    });
  });

  it("refuses a link as a parent, also for a new file and its missing parents", async () => {
    await symlink(bed.sandbox.evil, bed.inRoot("evil"));
    await symlink("dir", bed.inRoot("alias"));
    for (const [path, create] of [
      ["evil/secret.txt", false],
      ["evil/new.txt", true],
      ["evil/new/deeper.txt", true],
      ["alias/a.txt", false],
    ] as const) {
      await expect(resolveForWrite(bed.root, path, { create })).rejects.toMatchObject({ code: "path_through_symlink" });
    }
  });

  it("refuses what is not a regular file", async () => {
    execFileSync("mkfifo", [bed.inRoot("pipe")], { stdio: "pipe" });
    await expect(resolveForWrite(bed.root, "dir")).rejects.toMatchObject({ code: "path_is_directory" });
    await expect(resolveForWrite(bed.root, ".")).rejects.toMatchObject({ code: "path_is_directory" });
    await expect(resolveForWrite(bed.root, "pipe")).rejects.toMatchObject({ code: "not_regular_file" });
    await expect(resolveForWrite(bed.root, "dir/a.txt/x", { create: true })).rejects.toMatchObject({
      code: "not_a_directory",
    });
  });

  it("requires an existing file, or a free path with create", async () => {
    await symlink("nowhere", bed.inRoot("dangling"));
    await expect(resolveForWrite(bed.root, "dir/missing.txt")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveForWrite(bed.root, "nodir/missing.txt")).rejects.toMatchObject({ code: "path_not_found" });
    await expect(resolveForWrite(bed.root, "dir/a.txt", { create: true })).rejects.toMatchObject({
      code: "path_exists",
    });
    await expect(resolveForWrite(bed.root, "dir", { create: true })).rejects.toMatchObject({ code: "path_exists" });
    await expect(resolveForWrite(bed.root, "dangling", { create: true })).rejects.toMatchObject({
      code: "path_exists",
      message: expect.stringContaining("symbolic link"),
    });
  });

  it("refuses an invalid path before any I/O", async () => {
    for (const path of ["../outside.txt", "dir/../../x", "/tmp/x", "dir//a.txt", "dir/a.txt/"]) {
      await expect(resolveForWrite(bed.root, path, { create: true })).rejects.toMatchObject({ code: "path_invalid" });
    }
    expect(bed.log.calls).toEqual([]);
  });
});

describe("a write raced by a swap", () => {
  /** Moves `dir` away and puts a link to root-evil/ in its place. */
  async function swapDirForLink(): Promise<void> {
    await rename(bed.inRoot("dir"), bed.inRoot("dir-moved"));
    await symlink(bed.sandbox.evil, bed.inRoot("dir"));
  }

  /** Runs `swap` once, before the first call `matches`, after `armed` has been seen. */
  function swapAt(matches: (operation: string, flags?: number) => boolean, swap: () => Promise<void>): void {
    let done = false;
    bed.hook = async (call) => {
      if (done || !matches(call.operation, call.flags)) return;
      done = true;
      await swap();
    };
  }

  it("fails with path_changed when the parent became a link after validation, writing nothing", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    await swapDirForLink();
    await expect(writeFileAtomically(target, "attack")).rejects.toMatchObject({
      code: "path_changed",
      message: expect.stringContaining('"dir"'),
    });
    expect(callsOf(bed.log, "open")).toEqual([]);
    expect(await readFile(bed.inRoot("dir-moved/a.txt"), "utf8")).toBe("old\n");
  });

  it("removes the temporary file when the parent became a link just before it was created", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    swapAt((operation, flags) => operation === "open" && ((flags ?? 0) & constants.O_CREAT) !== 0, swapDirForLink);
    await expect(writeFileAtomically(target, "attack")).rejects.toMatchObject({ code: "path_changed" });
    // The temporary file went through the link into root-evil/; it was found there and removed
    // (the afterEach snapshot checks root-evil/ is as it was).
    expect(await names(bed.sandbox.evil)).toEqual(["secret.txt"]);
    expect(await readFile(bed.inRoot("dir-moved/a.txt"), "utf8")).toBe("old\n");
  });

  it("renames nothing outside when the parent became a link just before the rename", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    swapAt((operation) => operation === "rename", swapDirForLink);
    await expect(writeFileAtomically(target, "attack")).rejects.toMatchObject({ code: "path_changed" });
    expect(await readFile(join(bed.sandbox.evil, "secret.txt"), "utf8")).toBe("evil secret\n");
    expect(await readFile(bed.inRoot("dir-moved/a.txt"), "utf8")).toBe("old\n");
  });

  it("fails with path_changed when the parent is swapped after the temporary file was written", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    let opened = false;
    bed.hook = async (call) => {
      if (call.operation === "open") opened = true;
      else if (opened && call.operation === "lstat") {
        opened = false;
        await swapDirForLink();
      }
    };
    await expect(writeFileAtomically(target, "attack")).rejects.toMatchObject({
      code: "path_changed",
      message: expect.stringContaining('"dir" (on the way to "dir/a.txt")'),
    });
    expect(await readFile(bed.inRoot("dir-moved/a.txt"), "utf8")).toBe("old\n");
  });

  it("fails with path_changed when the target was replaced meanwhile, keeping the replacement", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    await rm(bed.inRoot("dir/a.txt"));
    await writeFile(bed.inRoot("dir/a.txt"), "theirs\n");
    await expect(writeFileAtomically(target, "mine\n")).rejects.toMatchObject({ code: "path_changed" });
    expect(await readFile(bed.inRoot("dir/a.txt"), "utf8")).toBe("theirs\n");
    expect(await names(bed.inRoot("dir"))).toEqual(["a.txt"]);
  });

  it("fails with path_changed when the target was modified in place meanwhile", async () => {
    const target = await resolveForWrite(bed.root, "dir/a.txt");
    await writeFile(bed.inRoot("dir/a.txt"), "theirs\n");
    await expect(writeFileAtomically(target, "mine\n")).rejects.toMatchObject({
      code: "path_changed",
      message: expect.stringContaining("Read it again"),
    });
    expect(await readFile(bed.inRoot("dir/a.txt"), "utf8")).toBe("theirs\n");
  });

  it("fails with path_changed when a new file's path was taken meanwhile", async () => {
    const target = await resolveForWrite(bed.root, "dir/new.txt", { create: true });
    await writeFile(bed.inRoot("dir/new.txt"), "theirs\n");
    await expect(writeFileAtomically(target, "mine\n")).rejects.toMatchObject({ code: "path_changed" });
    expect(await readFile(bed.inRoot("dir/new.txt"), "utf8")).toBe("theirs\n");
    expect(await names(bed.inRoot("dir"))).toEqual(["a.txt", "new.txt"]);
  });

  it("fails with path_changed when a link appears where a parent is being created", async () => {
    const target = await resolveForWrite(bed.root, "dir/x/y.txt", { create: true });
    swapAt(
      (operation) => operation === "mkdir",
      () => symlink(bed.sandbox.evil, bed.inRoot("dir/x")),
    );
    await expect(writeFileAtomically(target, "attack")).rejects.toMatchObject({
      code: "path_changed",
      message: expect.stringContaining('"dir/x"'),
    });
    expect(callsOf(bed.log, "open")).toEqual([]);
  });
});

describe("a failed write", () => {
  /** A root whose operations fail `operation` with `code`. */
  async function failing(operation: "rename" | "write", code: string): Promise<WorkspaceRoot> {
    const fail = () => Promise.reject(Object.assign(new Error(`injected ${code}`), { code }));
    const operations: WorkspaceOperations = {
      ...bed.root.operations,
      rename: operation === "rename" ? fail : bed.root.operations.rename,
      open: async (path, flags, mode) => {
        const handle = await bed.root.operations.open(path, flags, mode);
        return operation === "write" ? { ...bind(handle), write: fail } : handle;
      },
    };
    return bindWorkspaceRoot(bed.sandbox.rootUrl, operations);
  }

  function bind<T extends object>(handle: T): T {
    const bound: Record<string, unknown> = {};
    for (const key of ["read", "write", "stat", "chmod", "close"]) {
      bound[key] = (handle as Record<string, (...args: unknown[]) => unknown>)[key]!.bind(handle);
    }
    return bound as T;
  }

  it.each(["rename", "write"] as const)(
    "removes the temporary file and the directories it made when %s fails",
    async (operation) => {
      const other = await failing(operation, "EIO");
      await expect(writeFileAtomically(await resolveForWrite(other, "dir/a.txt"), "new")).rejects.toThrow(
        "injected EIO",
      );
      expect(await readFile(bed.inRoot("dir/a.txt"), "utf8")).toBe("old\n");
      expect(await names(bed.inRoot("dir"))).toEqual(["a.txt"]);
      const target = await resolveForWrite(other, "dir/p/q/new.txt", { create: true });
      await expect(writeFileAtomically(target, "new")).rejects.toThrow("injected EIO");
      expect(await names(bed.inRoot("dir"))).toEqual(["a.txt"]);
    },
  );

  it("reports a denied access as permission_denied", async () => {
    const other = await failing("rename", "EACCES");
    await expect(writeFileAtomically(await resolveForWrite(other, "dir/a.txt"), "new")).rejects.toMatchObject({
      code: "permission_denied",
    });
  });
});
