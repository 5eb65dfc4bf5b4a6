import { checkWorkspacePath, isWorkspacePath, joinSegments } from "../../kernel/workspace-path/check-path.js";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { identityOf } from "./identity.js";
import { errorCode, ioFailure } from "./io-error.js";
import type { WorkspaceDirent } from "./operations.js";
import { remember, stateOf } from "./resolution.js";
import { absolutePath, type WorkspaceRoot } from "./root.js";
import { changed, kindOf, notFound } from "./shared-refusals.js";
import { linkText, lstatOrMissing, verifyDirectories, walkAncestors } from "./walk.js";

/** What an entry is, not following links. */
export type WorkspaceEntryKind = "file" | "directory" | "symlink" | "other";

/** A directory inside the root, validated by {@link resolveDirectory}; pass it unchanged to {@link readDirectory}. */
export interface ResolvedDirectory {
  readonly root: WorkspaceRoot;
  /** The workspace path as given; `.` for the root. */
  readonly path: string;
}

/** One entry of a directory, as {@link readDirectory} reports it. */
export interface WorkspaceDirectoryEntry {
  readonly name: string;
  /**
   * The entry's workspace path, or undefined when its name cannot be written as one (a
   * backslash or control character in it). A name that is not valid UTF-8 arrives with
   * U+FFFD in it and does not resolve back to the entry.
   */
  readonly path: string | undefined;
  readonly kind: WorkspaceEntryKind;
}

/**
 * Validates a workspace path as a directory to list, `.` being the root. Walks from the root
 * with `lstat`, never following a link: an ancestor link is `path_through_symlink`, the
 * directory itself being a link `path_is_symlink` (traversal does not follow links); a file
 * is `not_a_directory`, nothing there `path_not_found`.
 */
export async function resolveDirectory(root: WorkspaceRoot, path: string): Promise<ResolvedDirectory> {
  const segments = checkWorkspacePath(path);
  const walk = await walkAncestors(root, segments, path);
  let directories = walk.directories;
  if (segments.length > 0) {
    if (walk.missingFrom !== undefined) throw notFound(segments, walk.missingFrom, path);
    const absolute = absolutePath(root, segments);
    const stats = await lstatOrMissing(root, absolute, path);
    if (!stats) throw notFound(segments, segments.length - 1, path);
    if (stats.isSymbolicLink()) {
      throw refusal(
        "path_is_symlink",
        `${quote(path)} is a symbolic link${await linkText(root, absolute)}; listing does not follow links. List the directory it points to by its own path, if that is inside the workspace.`,
      );
    }
    if (!stats.isDirectory()) {
      throw refusal(
        "not_a_directory",
        `${quote(path)} is ${kindOf(stats)}, not a directory. List ${quote(joinSegments(segments, segments.length - 1))} to see what is there, or read the file.`,
      );
    }
    directories = [...directories, { absolute, path, identity: identityOf(stats) }];
  }
  const last = directories[directories.length - 1]!;
  return remember(
    { root, path },
    {
      purpose: "directory",
      root,
      path,
      directories,
      absolute: last.absolute,
      identity: last.identity,
      mode: undefined,
      version: undefined,
      missing: [],
      used: false,
    },
  );
}

/**
 * The entries of a directory validated by {@link resolveDirectory}, sorted by name in UTF-8
 * byte order (stable across calls, for paging). Each entry's kind is its own, links not
 * followed. The directory and those on the way are checked before and after reading it
 * (`path_changed` if one was replaced). The whole listing is in memory: callers page it.
 */
export async function readDirectory(directory: ResolvedDirectory): Promise<WorkspaceDirectoryEntry[]> {
  const state = stateOf(directory, ["directory"], "readDirectory");
  const { root, path } = state;
  await verifyDirectories(root, state.directories, path);
  let dirents: WorkspaceDirent[];
  try {
    dirents = await root.operations.readdir(state.absolute);
  } catch (error) {
    if (["ENOENT", "ENOTDIR"].includes(errorCode(error) ?? "")) throw changed(path, path);
    throw ioFailure(error, path);
  }
  await verifyDirectories(root, state.directories, path);
  const entries = dirents.map((dirent) => {
    const entryPath = path === "." ? dirent.name : `${path}/${dirent.name}`;
    return Object.freeze({
      name: dirent.name,
      path: isWorkspacePath(entryPath) ? entryPath : undefined,
      kind: direntKind(dirent),
      key: Buffer.from(dirent.name, "utf8"),
    });
  });
  entries.sort((a, b) => Buffer.compare(a.key, b.key));
  return entries.map(({ name, path, kind }) => Object.freeze({ name, path, kind }));
}

function direntKind(dirent: WorkspaceDirent): WorkspaceEntryKind {
  if (dirent.isSymbolicLink()) return "symlink";
  if (dirent.isDirectory()) return "directory";
  if (dirent.isFile()) return "file";
  return "other";
}
