// Internal to platform/paths: walking a path from the root, one lstat per segment.

import { joinSegments } from "../../kernel/workspace-path/check-path.js";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { type FileIdentity, identityOf, sameIdentity } from "./identity.js";
import { errorCode, ioFailure } from "./io-error.js";
import type { WorkspaceStats } from "./operations.js";
import { absolutePath, rootIdentity, type WorkspaceRoot } from "./root.js";
import { changed, kindOf, rootChanged } from "./shared-refusals.js";

/** A directory validated on the way to a target: the root, or an ancestor of the target. */
export interface CheckedDirectory {
  /** Absolute path. */
  readonly absolute: string;
  /** Workspace path, `.` for the root. */
  readonly path: string;
  readonly identity: FileIdentity;
}

/** What walking a target's ancestors found. */
export interface Walk {
  /** The root, then each existing ancestor, outermost first. */
  readonly directories: readonly CheckedDirectory[];
  /** The index of the first ancestor segment that does not exist; undefined when all do. */
  readonly missingFrom: number | undefined;
}

/**
 * Checks the root, then `lstat`s each ancestor of the target (every segment but the last),
 * never following a link: a link is refused with `path_through_symlink` (or `path_changed`
 * when `linkMeansChange`, for a path that was canonical a moment ago), a non-directory with
 * `not_a_directory`. Stops at the first missing ancestor. `shown` is the path for messages.
 */
export async function walkAncestors(
  root: WorkspaceRoot,
  segments: readonly string[],
  shown: string,
  options: { linkMeansChange?: boolean } = {},
): Promise<Walk> {
  const directories: CheckedDirectory[] = [await checkRoot(root)];
  for (let count = 1; count < segments.length; count++) {
    const path = joinSegments(segments, count);
    const absolute = absolutePath(root, segments.slice(0, count));
    const stats = await lstatOrMissing(root, absolute, shown);
    if (!stats) return { directories, missingFrom: count - 1 };
    if (stats.isSymbolicLink()) {
      if (options.linkMeansChange) throw changed(path, shown);
      const target = await linkText(root, absolute);
      throw refusal(
        "path_through_symlink",
        `${quote(path)} in ${quote(shown)} is a symbolic link${target}; links to directories are not followed. Use the path of the directory it points to, if that is inside the workspace.`,
      );
    }
    if (!stats.isDirectory()) {
      throw refusal(
        "not_a_directory",
        `${quote(path)} in ${quote(shown)} is ${kindOf(stats)}, not a directory. List ${quote(joinSegments(segments, count - 1))} to see what is there.`,
      );
    }
    directories.push({ absolute, path, identity: identityOf(stats) });
  }
  return { directories, missingFrom: undefined };
}

/**
 * Checks again that each directory is still the directory validated (same identity, not a
 * link); `path_changed` (naming it) otherwise. Called after opening and before renaming or
 * unlinking, to catch a directory swapped for a link in between.
 */
export async function verifyDirectories(
  root: WorkspaceRoot,
  directories: readonly CheckedDirectory[],
  shown: string,
): Promise<void> {
  for (const directory of directories) {
    const stats = await lstatOrMissing(root, directory.absolute, shown);
    const same = stats?.isDirectory() === true && sameIdentity(identityOf(stats), directory.identity);
    if (same) continue;
    if (directory.path === ".") throw rootChanged(root);
    throw changed(directory.path, shown);
  }
}

/** `lstat`, with a missing path as undefined and other errors as refusals where they are the model's to fix. */
export async function lstatOrMissing(
  root: WorkspaceRoot,
  absolute: string,
  shown: string,
): Promise<WorkspaceStats | undefined> {
  try {
    return await root.operations.lstat(absolute);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    // An ancestor stopped being a directory, or became a link, after it was checked.
    if (errorCode(error) === "ENOTDIR" || errorCode(error) === "ELOOP") throw changed(shown, shown);
    throw ioFailure(error, shown);
  }
}

/** ` (to "target")` for a link, or nothing when its text cannot be read; for messages. */
export async function linkText(root: WorkspaceRoot, absolute: string): Promise<string> {
  try {
    return ` (to ${quote(await root.operations.readlink(absolute))})`;
  } catch {
    return "";
  }
}

async function checkRoot(root: WorkspaceRoot): Promise<CheckedDirectory> {
  const identity = rootIdentity(root);
  const stats = await lstatOrMissing(root, root.realPath, ".");
  if (!stats?.isDirectory() || !sameIdentity(identityOf(stats), identity)) throw rootChanged(root);
  return { absolute: root.realPath, path: ".", identity };
}
