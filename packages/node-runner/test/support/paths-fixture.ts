// Test support for the *.test.ts files beside it; not part of the workspace path API.
import { createHash } from "node:crypto";
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, expect } from "vitest";
import {
  nodeWorkspaceOperations,
  type WorkspaceFileHandle,
  type WorkspaceOperations,
} from "../../src/platform/paths/operations.js";
import { bindWorkspaceRoot, type WorkspaceRoot } from "../../src/platform/paths/root.js";

/** A temporary tree: `root/` (the workspace) beside a sentinel `root-evil/` and an outside file. */
export interface Sandbox {
  /** The real path of the temporary directory holding everything. */
  readonly base: string;
  /** The workspace root's real path. */
  readonly root: string;
  /** The root as a file URL. */
  readonly rootUrl: URL;
  /** A sibling whose name starts with the root's: `root-evil/`, holding `secret.txt`. */
  readonly evil: string;
  /** A file outside the root: `outside.txt`. */
  readonly outsideFile: string;
  /** Every entry outside the root, with its type, identity, mode and content hash. */
  outsideSnapshot(): Promise<string[]>;
  remove(): Promise<void>;
}

/** The part of a {@link Sandbox} that {@link writeSandboxLayout} makes. */
export type SandboxLayout = Pick<Sandbox, "root" | "rootUrl" | "evil" | "outsideFile">;

/**
 * Makes the sandbox's layout in the existing directory `base` (taken as given, not resolved):
 * an empty `root/`, `root-evil/secret.txt` ("evil secret") and `outside.txt` ("outside secret").
 */
export async function writeSandboxLayout(base: string): Promise<SandboxLayout> {
  const root = join(base, "root");
  const evil = join(base, "root-evil");
  const outsideFile = join(base, "outside.txt");
  await mkdir(root);
  await mkdir(evil);
  await writeFile(join(evil, "secret.txt"), "evil secret\n");
  await writeFile(outsideFile, "outside secret\n");
  return { root, rootUrl: pathToFileURL(`${root}/`), evil, outsideFile };
}

/** Makes a {@link Sandbox} under the OS temporary directory. */
export async function makeSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "castellan-paths-")));
  const layout = await writeSandboxLayout(base);
  return {
    base,
    ...layout,
    outsideSnapshot: () => snapshot(base, new Set([layout.root])),
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

async function snapshot(directory: string, skip: ReadonlySet<string>): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await readdir(directory)).sort()) {
    const path = join(directory, name);
    if (skip.has(path)) continue;
    const stats = await lstat(path);
    const head = `${path} mode=${stats.mode.toString(8)} ino=${stats.ino} size=${stats.size}`;
    if (stats.isDirectory()) {
      lines.push(head, ...(await snapshot(path, skip)));
    } else if (stats.isSymbolicLink()) {
      lines.push(`${head} -> ${await readlink(path)}`);
    } else if (stats.isFile()) {
      lines.push(
        `${head} sha256=${createHash("sha256")
          .update(await readFile(path))
          .digest("hex")}`,
      );
    } else {
      lines.push(head);
    }
  }
  return lines;
}

/** One call the layer made, with the paths it passed. */
export interface LoggedCall {
  readonly operation: string;
  readonly paths: readonly string[];
  readonly flags?: number;
}

/** What a {@link loggingOperations} wrapper saw. */
export interface OperationLog {
  readonly calls: LoggedCall[];
  /** Bytes returned by every read of every handle opened. */
  bytesRead: number;
  /** Bytes written through every handle opened. */
  bytesWritten: number;
}

/**
 * A hook run before each call reaches the real operation (to swap files at the right moment);
 * it may throw to fail the call.
 */
export type BeforeCall = (call: LoggedCall) => void | Promise<void>;

/** Wraps `inner` (default: the local file system) to log every path passed and count bytes read and written. */
export function loggingOperations(
  before?: BeforeCall,
  inner: WorkspaceOperations = nodeWorkspaceOperations,
): { operations: WorkspaceOperations; log: OperationLog } {
  const log: OperationLog = { calls: [], bytesRead: 0, bytesWritten: 0 };
  const call = async <T>(entry: LoggedCall, run: () => Promise<T>): Promise<T> => {
    log.calls.push(entry);
    await before?.(entry);
    return run();
  };
  const wrapHandle = (handle: WorkspaceFileHandle): WorkspaceFileHandle => ({
    async read(buffer, offset, length, position) {
      const result = await handle.read(buffer, offset, length, position);
      log.bytesRead += result.bytesRead;
      return result;
    },
    async write(buffer, offset, length, position) {
      const result = await handle.write(buffer, offset, length, position);
      log.bytesWritten += result.bytesWritten;
      return result;
    },
    stat: () => handle.stat(),
    chmod: (mode) => handle.chmod(mode),
    close: () => handle.close(),
  });
  const operations: WorkspaceOperations = {
    lstat: (path) => call({ operation: "lstat", paths: [path] }, () => inner.lstat(path)),
    realpath: (path) => call({ operation: "realpath", paths: [path] }, () => inner.realpath(path)),
    readlink: (path) => call({ operation: "readlink", paths: [path] }, () => inner.readlink(path)),
    readdir: (path) => call({ operation: "readdir", paths: [path] }, () => inner.readdir(path)),
    open: (path, flags, mode) =>
      call({ operation: "open", paths: [path], flags }, async () => wrapHandle(await inner.open(path, flags, mode))),
    mkdir: (path) => call({ operation: "mkdir", paths: [path] }, () => inner.mkdir(path)),
    rmdir: (path) => call({ operation: "rmdir", paths: [path] }, () => inner.rmdir(path)),
    rename: (from, to) => call({ operation: "rename", paths: [from, to] }, () => inner.rename(from, to)),
    unlink: (path) => call({ operation: "unlink", paths: [path] }, () => inner.unlink(path)),
  };
  return { operations, log };
}

/** The logged paths that are not the root or beneath it (whole segments compared, and no `..`). */
export function pathsOutside(log: OperationLog, root: string): string[] {
  return log.calls
    .flatMap((entry) => entry.paths)
    .filter((path) => (path !== root && !path.startsWith(`${root}/`)) || path.split("/").includes(".."));
}

/** The logged calls of one operation. */
export function callsOf(log: OperationLog, operation: string): LoggedCall[] {
  return log.calls.filter((entry) => entry.operation === operation);
}

/** What {@link usePathsTestBed} gives each test: a fresh sandbox, its bound root and the log of its calls. */
export interface PathsTestBed {
  readonly sandbox: Sandbox;
  readonly root: WorkspaceRoot;
  readonly log: OperationLog;
  /** Runs before each logged call of the current test; reset to none for each test. */
  hook: BeforeCall | undefined;
  /** The absolute path of a workspace path in the current sandbox. */
  inRoot(path: string): string;
  /**
   * Takes the outside snapshot again, for a test that changes the outside on purpose as part of its
   * setup: the after-each check then compares against the outside as it was at this call.
   */
  snapshotOutside(): Promise<void>;
}

/**
 * Gives each test of the calling file a sandbox with a root bound through logging operations,
 * after `populate` (with the log cleared after it). After each test it checks that nothing
 * outside the root was passed to the file system and that the outside sentinel is unchanged,
 * then removes the sandbox.
 */
export function usePathsTestBed(populate: (bed: PathsTestBed) => Promise<void> = async () => {}): PathsTestBed {
  let current: { sandbox: Sandbox; root: WorkspaceRoot; log: OperationLog; before: string[] } | undefined;
  const bed: PathsTestBed = {
    get sandbox() {
      return (current ?? missing()).sandbox;
    },
    get root() {
      return (current ?? missing()).root;
    },
    get log() {
      return (current ?? missing()).log;
    },
    hook: undefined,
    inRoot: (path) => join((current ?? missing()).sandbox.root, path),
    async snapshotOutside() {
      const now = current ?? missing();
      now.before = await now.sandbox.outsideSnapshot();
    },
  };
  beforeEach(async () => {
    const sandbox = await makeSandbox();
    bed.hook = undefined;
    const logging = loggingOperations((call) => bed.hook?.(call));
    const root = await bindWorkspaceRoot(sandbox.rootUrl, logging.operations);
    current = { sandbox, root, log: logging.log, before: [] };
    await populate(bed);
    logging.log.calls.length = 0;
    current.before = await sandbox.outsideSnapshot();
  });
  afterEach(async () => {
    if (!current) return;
    const { sandbox, log, before } = current;
    try {
      // Whatever a test did, nothing outside the root was passed to the file system or changed.
      expect(pathsOutside(log, sandbox.root)).toEqual([]);
      expect(await sandbox.outsideSnapshot()).toEqual(before);
    } finally {
      current = undefined;
      await sandbox.remove();
    }
  });
  return bed;
}

function missing(): never {
  throw new Error("The paths test bed exists only while a test runs.");
}
