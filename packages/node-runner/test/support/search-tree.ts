// Test support for the *.test.ts files beside it; not part of the search API.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { searchWorkspace } from "../../src/capabilities/workspace/search/search.js";
import type {
  SearchHit,
  SearchWorkspaceInput,
  SearchWorkspaceOptions,
  SearchWorkspacePage,
} from "../../src/capabilities/workspace/search/types.js";
import {
  nodeWorkspaceOperations,
  type WorkspaceFileHandle,
  type WorkspaceOperations,
} from "../../src/platform/paths/operations.js";
import { bindWorkspaceRoot, type WorkspaceRoot } from "../../src/platform/paths/root.js";

/** One file-system call made through a {@link loggingOperations} wrapper. */
export interface LoggedCall {
  readonly operation: string;
  readonly path: string;
}

/** What a {@link loggingOperations} wrapper saw. */
export interface OperationLog {
  readonly calls: LoggedCall[];
  /** Bytes returned by every read of every handle opened. */
  bytesRead: number;
}

/** Wraps `inner` to log each call's path and count the bytes read. */
export function loggingOperations(inner: WorkspaceOperations = nodeWorkspaceOperations): {
  operations: WorkspaceOperations;
  log: OperationLog;
} {
  const log: OperationLog = { calls: [], bytesRead: 0 };
  const logged =
    <T>(operation: string, run: (path: string) => Promise<T>) =>
    (path: string) => {
      log.calls.push({ operation, path });
      return run(path);
    };
  const wrap = (handle: WorkspaceFileHandle): WorkspaceFileHandle => ({
    read: async (buffer, offset, length, position) => {
      const result = await handle.read(buffer, offset, length, position);
      log.bytesRead += result.bytesRead;
      return result;
    },
    write: (buffer, offset, length, position) => handle.write(buffer, offset, length, position),
    stat: () => handle.stat(),
    chmod: (mode) => handle.chmod(mode),
    close: () => handle.close(),
  });
  const operations: WorkspaceOperations = {
    lstat: logged("lstat", (path) => inner.lstat(path)),
    realpath: logged("realpath", (path) => inner.realpath(path)),
    readlink: logged("readlink", (path) => inner.readlink(path)),
    readdir: logged("readdir", (path) => inner.readdir(path)),
    open: (path, flags, mode) => {
      log.calls.push({ operation: "open", path });
      return inner.open(path, flags, mode).then(wrap);
    },
    mkdir: logged("mkdir", (path) => inner.mkdir(path)),
    rmdir: logged("rmdir", (path) => inner.rmdir(path)),
    rename: (from, to) => {
      log.calls.push({ operation: "rename", path: from });
      return inner.rename(from, to);
    },
    unlink: logged("unlink", (path) => inner.unlink(path)),
  };
  return { operations, log };
}

/** A temporary workspace root `root/` beside an `outside/` directory, bound through a logging wrapper. */
export interface TestTree {
  /** The real path of the temporary directory holding both. */
  readonly base: string;
  /** The root's real path. */
  readonly directory: string;
  /** A directory beside the root holding `secret.txt` ("outside needle"). */
  readonly outside: string;
  readonly root: WorkspaceRoot;
  /** Every file-system call the search made through the root. */
  readonly log: OperationLog;
  /** Absolute path of a root-relative path. */
  at(path: string): string;
  remove(): Promise<void>;
}

/** What to create: a file's content, or `{ link }` for a symbolic link with that target text. */
export type TreeEntry = string | Uint8Array | { readonly link: string };

/** Makes a tree of `entries` (root-relative paths; parents are created). */
export async function makeTree(
  entries: Readonly<Record<string, TreeEntry>>,
  inner?: WorkspaceOperations,
): Promise<TestTree> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "castellan-search-")));
  const directory = join(base, "root");
  const outside = join(base, "outside");
  await mkdir(directory);
  await addEntries(outside, { "secret.txt": "outside needle\n" });
  await addEntries(directory, entries);
  const logging = loggingOperations(inner);
  const root = await bindWorkspaceRoot(pathToFileURL(`${directory}/`), logging.operations);
  logging.log.calls.length = 0;
  const at = (path: string) => join(directory, path);
  return {
    base,
    directory,
    outside,
    root,
    log: logging.log,
    at,
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/** Writes `entries` beneath `directory`. */
export async function addEntries(directory: string, entries: Readonly<Record<string, TreeEntry>>): Promise<void> {
  for (const [path, entry] of Object.entries(entries)) {
    const absolute = join(directory, path);
    await mkdir(dirname(absolute), { recursive: true });
    if (typeof entry === "object" && "link" in entry) await symlink(entry.link, absolute);
    else await writeFile(absolute, entry);
  }
}

/** Every page of a search, followed from the first to the end (at most `limit` pages). */
export async function allPages(
  root: WorkspaceRoot,
  input: SearchWorkspaceInput,
  options: SearchWorkspaceOptions = {},
  limit = 1_000,
): Promise<SearchWorkspacePage[]> {
  const pages: SearchWorkspacePage[] = [];
  let offset = input.offset;
  do {
    const page = await searchWorkspace(root, { ...input, offset }, options);
    pages.push(page);
    offset = page.nextOffset;
    if (pages.length > limit) throw new Error(`more than ${limit} pages`);
  } while (offset !== undefined);
  return pages;
}

/** The hits of every page, in order. */
export async function allHits(
  root: WorkspaceRoot,
  input: SearchWorkspaceInput,
  options: SearchWorkspaceOptions = {},
): Promise<SearchHit[]> {
  return (await allPages(root, input, options)).flatMap((page) => page.hits);
}

/** `path:line` of each hit, for compact expectations. */
export function locations(hits: readonly SearchHit[]): string[] {
  return hits.map((hit) => `${hit.path}:${hit.line}`);
}
