// Test support for the *.test.ts files beside it; not part of the workspace path API.
import { createHash } from "node:crypto";
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  nodeWorkspaceOperations,
  type WorkspaceFileHandle,
  type WorkspaceOperations,
} from "../../src/workspace/paths/operations.js";

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

/** Makes a {@link Sandbox} under the OS temporary directory. */
export async function makeSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "castellan-paths-")));
  const root = join(base, "root");
  const evil = join(base, "root-evil");
  const outsideFile = join(base, "outside.txt");
  await mkdir(root);
  await mkdir(evil);
  await writeFile(join(evil, "secret.txt"), "evil secret\n");
  await writeFile(outsideFile, "outside secret\n");
  return {
    base,
    root,
    rootUrl: pathToFileURL(`${root}/`),
    evil,
    outsideFile,
    outsideSnapshot: () => snapshot(base, new Set([root])),
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
