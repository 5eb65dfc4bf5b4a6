import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, open, rename, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { callsOf, usePathsTestBed } from "../../../test/support/paths-fixture.ts";
import { openFileForReading, openResolvedFile, readWholeFile } from "./open-file.js";
import type { WorkspaceOperations } from "./operations.js";
import { resolveForRead } from "./resolve-read.js";
import { resolveForWrite } from "./resolve-write.js";
import { bindWorkspaceRoot } from "./root.js";

const bed = usePathsTestBed();
const servers: Server[] = [];

// Registered after the bed so that, as before, the servers close before the bed checks and removes the
// sandbox: vitest runs afterEach hooks in reverse order of registration (sequence.hooks "stack", the default).
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** Makes a FIFO (node:fs cannot), keeping the tool's output off the console. */
function mkfifo(path: string): void {
  execFileSync("mkfifo", [path], { stdio: "pipe" });
}

describe("openFileForReading", () => {
  it("reads page by page into the caller's buffer", async () => {
    await writeFile(bed.inRoot("abc.txt"), "abcdefghij");
    const handle = await openFileForReading(bed.root, "abc.txt");
    try {
      expect(handle).toMatchObject({ path: "abc.txt", size: 10 });
      const page = new Uint8Array(4);
      expect(await handle.read(page, 0)).toBe(4);
      expect(Buffer.from(page).toString()).toBe("abcd");
      expect(await handle.read(page, 8)).toBe(2);
      expect(Buffer.from(page.subarray(0, 2)).toString()).toBe("ij");
      expect(await handle.read(page, 10)).toBe(0);
      expect(await handle.read(page, 1000)).toBe(0);
      await expect(handle.read(page, -1)).rejects.toThrow(RangeError);
      await expect(handle.read(page, 1.5)).rejects.toThrow(RangeError);
    } finally {
      await handle.close();
    }
    await handle.close();
    await expect(handle.read(new Uint8Array(1), 0)).rejects.toThrow("closed");
  });

  it("opens with O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY", async () => {
    await writeFile(bed.inRoot("a.txt"), "a");
    await (await openFileForReading(bed.root, "a.txt")).close();
    const [opened] = callsOf(bed.log, "open");
    const expected = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
    expect(opened?.flags).toBe(expected);
  });

  it("reads a page from the middle of a 1 GB sparse file without reading the rest", async () => {
    const sparse = await open(bed.inRoot("sparse.bin"), "w");
    await sparse.truncate(2 ** 30);
    await sparse.write(Buffer.from("needle"), 0, 6, 2 ** 29);
    await sparse.close();
    const handle = await openFileForReading(bed.root, "sparse.bin");
    try {
      expect(handle.size).toBe(2 ** 30);
      const page = new Uint8Array(64 * 1024);
      expect(await handle.read(page, 2 ** 29)).toBe(page.length);
      expect(Buffer.from(page.subarray(0, 6)).toString()).toBe("needle");
    } finally {
      await handle.close();
    }
    expect(bed.log.bytesRead).toBe(64 * 1024);
  });

  it("never opens a FIFO, and does not block on one (not_regular_file)", async () => {
    mkfifo(bed.inRoot("pipe"));
    await expect(openFileForReading(bed.root, "pipe")).rejects.toMatchObject({
      code: "not_regular_file",
      message: expect.stringContaining("FIFO"),
    });
    expect(callsOf(bed.log, "open")).toEqual([]);
  });

  it("never opens a socket (not_regular_file)", async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((listening) => server.listen(bed.inRoot("sock"), listening));
    await expect(openFileForReading(bed.root, "sock")).rejects.toMatchObject({
      code: "not_regular_file",
      message: expect.stringContaining("socket"),
    });
    expect(callsOf(bed.log, "open")).toEqual([]);
  });

  it("never opens a device (not_regular_file)", async (context) => {
    try {
      // The major and minor numbers of /dev/null; needs root (or CAP_MKNOD).
      execFileSync("mknod", [bed.inRoot("null"), "c", "1", "3"], { stdio: "pipe" });
    } catch {
      context.skip("mknod is not permitted here, so no device can be made to test with");
    }
    await expect(openFileForReading(bed.root, "null")).rejects.toMatchObject({
      code: "not_regular_file",
      message: expect.stringContaining("character device"),
    });
    expect(callsOf(bed.log, "open")).toEqual([]);
  });

  it("never opens a link to a FIFO", async () => {
    mkfifo(bed.inRoot("pipe"));
    await symlink("pipe", bed.inRoot("pipe-link"));
    await expect(openFileForReading(bed.root, "pipe-link")).rejects.toMatchObject({ code: "not_regular_file" });
    expect(callsOf(bed.log, "open")).toEqual([]);
  });
});

describe("a file swapped between validation and open", () => {
  /** Runs `swap` once, just before the first open reaches the file system. */
  function swapBeforeOpen(swap: () => Promise<void>): void {
    let done = false;
    bed.hook = async (call) => {
      if (call.operation !== "open" || done) return;
      done = true;
      await swap();
    };
  }

  it("fails with path_changed, without blocking, when a FIFO replaced it", async () => {
    await writeFile(bed.inRoot("a.txt"), "a");
    swapBeforeOpen(async () => {
      await rm(bed.inRoot("a.txt"));
      mkfifo(bed.inRoot("a.txt"));
    });
    await expect(openFileForReading(bed.root, "a.txt")).rejects.toMatchObject({ code: "path_changed" });
  }, 5_000);

  it("fails with path_changed when a link to an outside file replaced it", async () => {
    await writeFile(bed.inRoot("a.txt"), "a");
    swapBeforeOpen(async () => {
      await rm(bed.inRoot("a.txt"));
      await symlink(bed.sandbox.outsideFile, bed.inRoot("a.txt"));
    });
    await expect(openFileForReading(bed.root, "a.txt")).rejects.toMatchObject({ code: "path_changed" });
    expect(bed.log.bytesRead).toBe(0);
  });

  it("fails with path_changed when another file replaced it", async () => {
    await writeFile(bed.inRoot("a.txt"), "a");
    await writeFile(bed.inRoot("b.txt"), "b");
    swapBeforeOpen(async () => {
      await rename(bed.inRoot("b.txt"), bed.inRoot("a.txt"));
    });
    await expect(openFileForReading(bed.root, "a.txt")).rejects.toMatchObject({ code: "path_changed" });
  });

  it("fails with path_changed when the directory of a linked file became a link to outside", async () => {
    await mkdir(bed.inRoot("src"));
    await writeFile(bed.inRoot("src/secret.txt"), "inside");
    await symlink("src/secret.txt", bed.inRoot("link"));
    const file = await resolveForRead(bed.root, "link");
    expect(file.filePath).toBe("src/secret.txt");
    await rename(bed.inRoot("src"), bed.inRoot("src-moved"));
    await symlink(bed.sandbox.evil, bed.inRoot("src"));
    await expect(openResolvedFile(file)).rejects.toMatchObject({ code: "path_changed" });
    expect(bed.log.bytesRead).toBe(0);
  });

  it("closes the handle it opened when the check fails", async () => {
    await writeFile(bed.inRoot("a.txt"), "a");
    await writeFile(bed.inRoot("b.txt"), "b");
    let closed = 0;
    const counting: WorkspaceOperations = {
      ...bed.root.operations,
      open: async (path, flags, mode) => {
        const handle = await bed.root.operations.open(path, flags, mode);
        return {
          read: (...args) => handle.read(...args),
          write: (...args) => handle.write(...args),
          chmod: (mode) => handle.chmod(mode),
          stat: () => handle.stat(),
          close: () => {
            closed++;
            return handle.close();
          },
        };
      },
    };
    const other = await bindWorkspaceRoot(bed.sandbox.rootUrl, counting);
    const file = await resolveForRead(other, "a.txt");
    await rename(bed.inRoot("b.txt"), bed.inRoot("a.txt"));
    await expect(openResolvedFile(file)).rejects.toMatchObject({ code: "path_changed" });
    expect(closed).toBe(1);
  });
});

describe("readWholeFile", () => {
  it("reads a file up to the limit", async () => {
    await writeFile(bed.inRoot("a.txt"), "0123456789");
    const bytes = await readWholeFile(await resolveForRead(bed.root, "a.txt"), 10);
    expect(Buffer.from(bytes).toString()).toBe("0123456789");
    expect(await readWholeFile(await resolveForWrite(bed.root, "a.txt"), 10)).toHaveLength(10);
    await writeFile(bed.inRoot("empty"), "");
    expect(await readWholeFile(await resolveForRead(bed.root, "empty"), 0)).toHaveLength(0);
  });

  it("fails with file_too_large, naming size and limit, before reading a byte", async () => {
    const big = await open(bed.inRoot("big.bin"), "w");
    await big.truncate(10 * 1024 * 1024);
    await big.close();
    await expect(readWholeFile(await resolveForRead(bed.root, "big.bin"), 1024 * 1024)).rejects.toMatchObject({
      code: "file_too_large",
      message: expect.stringMatching(/10485760 bytes.*1048576 bytes/),
    });
    const sparse = await open(bed.inRoot("sparse.bin"), "w");
    await sparse.truncate(2 ** 30);
    await sparse.close();
    await expect(readWholeFile(await resolveForRead(bed.root, "sparse.bin"), 64 * 1024)).rejects.toMatchObject({
      code: "file_too_large",
    });
    expect(bed.log.bytesRead).toBe(0);
  });

  it("stops after the limit plus one byte when the file grew since it was opened", async () => {
    await writeFile(bed.inRoot("growing.txt"), "x".repeat(100_000));
    // The handle reports the size the file had when first validated.
    const shrinking: WorkspaceOperations = {
      ...bed.root.operations,
      open: async (path, flags, mode) => {
        const handle = await bed.root.operations.open(path, flags, mode);
        return {
          read: (...args) => handle.read(...args),
          write: (...args) => handle.write(...args),
          chmod: (mode) => handle.chmod(mode),
          close: () => handle.close(),
          stat: async () => Object.assign(await handle.stat(), { size: 10 }),
        };
      },
    };
    const other = await bindWorkspaceRoot(bed.sandbox.rootUrl, shrinking);
    const before = bed.log.bytesRead;
    await expect(readWholeFile(await resolveForRead(other, "growing.txt"), 1000)).rejects.toMatchObject({
      code: "file_too_large",
      message: expect.stringContaining("grew while being read"),
    });
    expect(bed.log.bytesRead - before).toBe(1001);
  });

  it("refuses a limit that is not a non-negative safe integer", async () => {
    await writeFile(bed.inRoot("a.txt"), "a");
    const file = await resolveForRead(bed.root, "a.txt");
    await expect(readWholeFile(file, -1)).rejects.toThrow(RangeError);
    await expect(readWholeFile(file, Number.NaN)).rejects.toThrow(RangeError);
  });

  it("refuses a value not resolved by this layer", async () => {
    await writeFile(bed.inRoot("a.txt"), "a");
    const file = await resolveForRead(bed.root, "a.txt");
    await expect(readWholeFile({ ...file }, 10)).rejects.toThrow(TypeError);
    await expect(openResolvedFile({ ...file })).rejects.toThrow(TypeError);
  });

  it("has nothing to read for a new file's target (path_not_found)", async () => {
    const target = await resolveForWrite(bed.root, "new.txt", { create: true });
    await expect(readWholeFile(target, 10)).rejects.toMatchObject({ code: "path_not_found" });
  });
});
