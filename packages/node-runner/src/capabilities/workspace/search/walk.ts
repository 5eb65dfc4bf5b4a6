import { isWorkspacePath } from "../../../kernel/workspace-path/check-path.js";
import type { WorkspaceDirent, WorkspaceStats } from "../../../platform/paths/operations.js";
import { absolutePath, type WorkspaceRoot } from "../../../platform/paths/root.js";
import { enterIgnoreDirectory, type IgnoreScope, isIgnored } from "../ignore/ignore-scope.js";
import { compareNames } from "./name-order.js";
import { isSkippable } from "./open-regular.js";

/** A file the walk selected. */
export interface WalkedFile {
  readonly segments: readonly string[];
  /** Root-relative workspace path. */
  readonly path: string;
  readonly absolute: string;
}

/** Where and how to walk. */
export interface WalkOptions {
  /** Segments of the directory to walk (validated: inside the root, no link on the way). */
  readonly directory: readonly string[];
  /** The ignore rules in force in that directory. */
  readonly scope: IgnoreScope;
  /** Only files whose root-relative path it accepts; all when absent. */
  readonly matchesGlob?: ((path: string) => boolean) | undefined;
  /**
   * Segments of a file to resume at: entries before it in walk order are not read or
   * entered, and it is yielded (if it still exists) followed by everything after it.
   */
  readonly resumeAt?: readonly string[] | undefined;
  /** Checked before each directory is read. */
  readonly signal?: AbortSignal | undefined;
}

/** Directories of one directory listed ahead of the walk reaching them, so their round trips overlap. */
const listAhead = 4;

interface Child {
  readonly segments: readonly string[];
  readonly path: string;
  readonly kind: "file" | "directory";
  /** The part of the resume path beneath this directory. */
  readonly resume: readonly string[] | undefined;
  /** Its entries, once asked for (directories only). */
  listing?: Promise<WorkspaceDirent[] | undefined>;
}

interface Frame {
  readonly scope: IgnoreScope;
  readonly children: readonly Child[];
  index: number;
  /** Index of the next child directory whose listing has not started. */
  ahead: number;
}

/**
 * The regular files beneath a directory, depth first, each directory's entries in UTF-8
 * byte order of name: what a search reads, in the order its pages follow. Skipped: `.git`,
 * entries ignored by the rules files (loaded as each directory is entered), symbolic links
 * (never followed or opened), FIFOs, sockets and devices (never opened: the type read with
 * the directory decides), names that are no valid workspace path (a control character, a
 * backslash), and directories that vanish or cannot be read. A few directories are listed
 * ahead of the walk; nothing before the resume path is listed.
 */
export async function* walkFiles(root: WorkspaceRoot, options: WalkOptions): AsyncGenerator<WalkedFile> {
  const { directory, scope, signal } = options;
  const resume = options.resumeAt?.slice(directory.length);
  const entries = await list(root, directory, signal);
  if (!entries) return;
  const stack: Frame[] = [await frameOf(root, directory, scope, entries, resume, options, false)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const child = frame.children[frame.index++];
    if (!child) {
      stack.pop();
      continue;
    }
    if (child.kind === "file") {
      yield { segments: child.segments, path: child.path, absolute: absolutePath(root, child.segments) };
      continue;
    }
    const listed = await (child.listing ?? list(root, child.segments, signal));
    startListings(root, frame, signal);
    if (listed) stack.push(await frameOf(root, child.segments, frame.scope, listed, child.resume, options, true));
  }
}

/** Sorts and selects a directory's entries, and starts listing its first directories. */
async function frameOf(
  root: WorkspaceRoot,
  segments: readonly string[],
  outer: IgnoreScope,
  entries: WorkspaceDirent[],
  resume: readonly string[] | undefined,
  options: WalkOptions,
  enter: boolean,
): Promise<Frame> {
  entries.sort((a, b) => compareNames(a.name, b.name));
  const scope = enter ? await enterIgnoreDirectory(root, outer, segments, entries) : outer;
  const children: Child[] = [];
  const pathPrefix = segments.length === 0 ? "" : `${segments.join("/")}/`;
  for (const entry of entries) {
    let below: readonly string[] | undefined;
    if (resume && resume.length > 0) {
      const order = compareNames(entry.name, resume[0]!);
      if (order < 0) continue;
      if (order === 0 && resume.length > 1) {
        // The resume path goes on beneath this name: only a directory of it is at or after it.
        if (!entry.isDirectory()) continue;
        below = resume.slice(1);
      }
    }
    const path = pathPrefix + entry.name;
    if (!usable(entry.name, path)) continue;
    const childSegments = [...segments, entry.name];
    const kind = await kindOf(root, entry, childSegments);
    if (kind === "other" || isIgnored(scope, childSegments, kind === "directory")) continue;
    if (kind === "file" && options.matchesGlob && !options.matchesGlob(path)) continue;
    children.push({ segments: childSegments, path, kind, resume: below });
  }
  const frame: Frame = { scope, children, index: 0, ahead: 0 };
  startListings(root, frame, options.signal);
  return frame;
}

/** Keeps the listings of the frame's next {@link listAhead} directories running. */
function startListings(root: WorkspaceRoot, frame: Frame, signal: AbortSignal | undefined): void {
  let started = 0;
  for (let index = frame.index; index < frame.children.length && started < listAhead; index++) {
    const child = frame.children[index]!;
    if (child.kind !== "directory") continue;
    started++;
    if (child.listing) continue;
    child.listing = list(root, child.segments, signal);
    // A failure is seen when the walk reaches the directory; until then it is not unhandled.
    child.listing.catch(() => undefined);
  }
}

/** A directory's entries, or undefined when it vanished or cannot be read. */
async function list(
  root: WorkspaceRoot,
  segments: readonly string[],
  signal: AbortSignal | undefined,
): Promise<WorkspaceDirent[] | undefined> {
  signal?.throwIfAborted();
  try {
    return await root.operations.readdir(absolutePath(root, segments));
  } catch (error) {
    if (isSkippable(error)) return undefined;
    throw error;
  }
}

// Printable ASCII but the backslash: a name of only these (the usual case) needs no further check.
const plainName = /^[\x20-\x5b\x5d-\x7e]{1,255}$/;

/** True when `path` (ending in `name`) is a valid workspace path. */
function usable(name: string, path: string): boolean {
  if (plainName.test(name) && path.length <= 4096) return true;
  return isWorkspacePath(path);
}

/** An entry's own type; an entry whose type the directory did not tell is looked up, never followed. */
async function kindOf(
  root: WorkspaceRoot,
  entry: WorkspaceDirent,
  segments: readonly string[],
): Promise<"file" | "directory" | "other"> {
  if (entry.isSymbolicLink()) return "other";
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "directory";
  let stats: WorkspaceStats;
  try {
    stats = await root.operations.lstat(absolutePath(root, segments));
  } catch {
    return "other";
  }
  // A FIFO, socket or device reports its kind; a file system that reports none gets a look.
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  return "other";
}
