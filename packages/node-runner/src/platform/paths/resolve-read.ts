import { checkWorkspacePath, joinSegments } from "../../kernel/workspace-path/check-path.js";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { identityOf } from "./identity.js";
import { errorCode, ioFailure } from "./io-error.js";
import { remember } from "./resolution.js";
import { absolutePath, segmentsInside, type WorkspaceRoot } from "./root.js";
import { changed, kindOf, notFound, notRegular, rootIsDirectory } from "./shared-refusals.js";
import { linkText, lstatOrMissing, walkAncestors } from "./walk.js";

/**
 * A regular file inside the root, validated for reading by {@link resolveForRead}. Open it
 * with `openResolvedFile` or `readWholeFile` (open-file.ts); the value is frozen, and a copy
 * or look-alike is refused.
 */
export interface ResolvedFile {
  readonly root: WorkspaceRoot;
  /** The workspace path as given. */
  readonly path: string;
  /** The workspace path of the file read: `path`, or where the link at `path` resolves to. */
  readonly filePath: string;
  /** True when `path` is a symbolic link that was followed to `filePath`. */
  readonly throughLink: boolean;
  /** Size in bytes when validated. */
  readonly size: number;
}

/**
 * Validates a workspace path for reading, walking from the root's real path with `lstat`:
 * an ancestor that is a link is refused (`path_through_symlink`); a last segment that is a
 * link is followed, but only to a regular file inside the root's real path
 * (`symlink_outside_root`, `symlink_loop`, `path_not_found` for a dangling one). Refuses a
 * directory (`path_is_directory`), a FIFO, socket or device (`not_regular_file`, never
 * opened), and a missing file (`path_not_found`). Path errors come first, without I/O.
 */
export async function resolveForRead(root: WorkspaceRoot, path: string): Promise<ResolvedFile> {
  const segments = checkWorkspacePath(path);
  if (segments.length === 0) throw rootIsDirectory();
  const walk = await walkAncestors(root, segments, path);
  if (walk.missingFrom !== undefined) throw notFound(segments, walk.missingFrom, path);
  const absolute = absolutePath(root, segments);
  const stats = await lstatOrMissing(root, absolute, path);
  if (!stats) throw notFound(segments, segments.length - 1, path);
  if (stats.isSymbolicLink()) return followLink(root, path, absolute);
  if (stats.isDirectory()) {
    throw refusal("path_is_directory", `${quote(path)} is a directory, not a file. List it to see its files.`);
  }
  if (!stats.isFile()) throw notRegular(path, kindOf(stats));
  return remember(
    { root, path, filePath: path, throughLink: false, size: stats.size },
    {
      purpose: "read",
      root,
      path,
      directories: walk.directories,
      absolute,
      identity: identityOf(stats),
      mode: stats.mode,
      version: undefined,
      missing: [],
      used: false,
    },
  );
}

/** A last-segment link: resolved in full, then the file it names is walked again without following anything. */
async function followLink(root: WorkspaceRoot, path: string, absolute: string): Promise<ResolvedFile> {
  let real: string;
  try {
    real = await root.operations.realpath(absolute);
  } catch (error) {
    const target = await linkText(root, absolute);
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") {
      throw refusal(
        "path_not_found",
        `${quote(path)} is a symbolic link${target} to nothing that exists. List its directory to see what is there.`,
      );
    }
    if (errorCode(error) === "ELOOP") {
      throw refusal(
        "symlink_loop",
        `${quote(path)} is a symbolic link${target} that loops back on itself; it cannot be read.`,
      );
    }
    throw ioFailure(error, path);
  }
  const segments = segmentsInside(root, real);
  if (!segments) {
    throw refusal(
      "symlink_outside_root",
      `${quote(path)} is a symbolic link${await linkText(root, absolute)} that leads outside the workspace; only files inside the workspace can be read.`,
    );
  }
  if (segments.length === 0) throw linkToDirectory(path, ".");
  const filePath = joinSegments(segments);
  // realpath saw no link on the way; one now means a swap since.
  const walk = await walkAncestors(root, segments, path, { linkMeansChange: true });
  if (walk.missingFrom !== undefined) throw changed(path, path);
  const stats = await lstatOrMissing(root, real, path);
  if (!stats || stats.isSymbolicLink()) throw changed(path, path);
  if (stats.isDirectory()) throw linkToDirectory(path, filePath);
  if (!stats.isFile()) throw notRegular(path, `a symbolic link to ${kindOf(stats)}`);
  return remember(
    { root, path, filePath, throughLink: true, size: stats.size },
    {
      purpose: "read",
      root,
      path,
      directories: walk.directories,
      absolute: real,
      identity: identityOf(stats),
      mode: stats.mode,
      version: undefined,
      missing: [],
      used: false,
    },
  );
}

function linkToDirectory(path: string, directory: string): Error {
  return refusal(
    "path_is_directory",
    `${quote(path)} is a symbolic link to the directory ${quote(directory)}, not a file. List ${quote(directory)} to see its files.`,
  );
}
