import { checkWorkspacePath, joinSegments } from "../../kernel/workspace-path/check-path.js";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { identityOf } from "./identity.js";
import { protectedRefusal, protectedRuleOf, resolvedProtectedRule } from "./protected-check.js";
import { remember } from "./resolution.js";
import { absolutePath, type WorkspaceRoot } from "./root.js";
import { kindOf, notFound, notRegular, rootIsDirectory } from "./shared-refusals.js";
import { linkText, lstatOrMissing, walkAncestors } from "./walk.js";

/** How {@link resolveForWrite} treats the target and its parents. */
export interface ResolveForWriteOptions {
  /**
   * False: the target must be an existing regular file (edit, patch update, delete). True:
   * it must not exist at all (`path_exists`), as for an added file or a move's destination.
   * Default false.
   */
  readonly create?: boolean;
  /**
   * With `create`, refuse a missing parent directory (`parent_missing`) instead of creating
   * it when the file is written. Default false: missing parents are created, each inside the
   * root and checked like any path.
   */
  readonly requireExistingParents?: boolean;
}

/**
 * A file validated for writing or deleting by {@link resolveForWrite}: pass it, unchanged, to
 * `writeFileAtomically`, `deleteFile` or `readWholeFile`. It is used once: after a write or
 * delete, resolve the path again. An existing file's size and change time are kept, and a
 * write refuses a file changed since (so resolve before reading what an edit is based on).
 * Frozen; a copy or look-alike is refused.
 */
export interface WriteTarget {
  readonly root: WorkspaceRoot;
  /** The workspace path as given. */
  readonly path: string;
  /** True when the target is an existing regular file (`create: false`). */
  readonly exists: boolean;
  /** The existing file's size in bytes when validated; 0 for a new file. */
  readonly size: number;
  /** Workspace paths of the missing parent directories a write will create, outermost first. */
  readonly createsDirectories: readonly string[];
}

/**
 * Validates a workspace path for writing, walking from the root's real path with `lstat` and
 * never following a link: an ancestor link is refused (`path_through_symlink`), a target link
 * too (`path_is_symlink`, naming where it points), as are a directory (`path_is_directory`) and
 * a FIFO, socket or device (`not_regular_file`). Unless the root was bound with
 * `allowProtectedWrites`, a path the OS sandbox denies to commands is refused first
 * (`path_protected`): any `.git` entry or what is beneath it, the root's `.castellan/` and
 * `.castellan-sessions/`, the shell and tool settings at the root and at each nested
 * repository's root, compared case-folded, by name and where links lead; and so is an existing
 * file with more than one hard link. Nothing is changed on disk: missing parents are only
 * planned here, so this can run before permission is asked.
 */
export async function resolveForWrite(
  root: WorkspaceRoot,
  path: string,
  options: ResolveForWriteOptions = {},
): Promise<WriteTarget> {
  const create = options.create === true;
  const segments = checkWorkspacePath(path);
  if (segments.length === 0) throw rootIsDirectory();
  const guarded = !root.allowsProtectedWrites;
  if (guarded) {
    const rule = await protectedRuleOf(root, segments);
    if (rule) throw protectedRefusal(path, rule);
    const linked = await resolvedProtectedRule(root, segments);
    if (linked)
      throw protectedRefusal(path, linked, `through a symbolic link, it reaches ${JSON.stringify(linked.entry)}`);
  }
  const walk = await walkAncestors(root, segments, path);
  const absolute = absolutePath(root, segments);
  const missing: { absolute: string; path: string }[] = [];
  if (walk.missingFrom !== undefined) {
    if (!create) throw notFound(segments, walk.missingFrom, path);
    const parent = joinSegments(segments, walk.missingFrom + 1);
    if (options.requireExistingParents) {
      throw refusal(
        "parent_missing",
        `The directory ${quote(parent)} for ${quote(path)} does not exist, and new files need an existing directory. Choose a path in one (list ${quote(joinSegments(segments, walk.missingFrom))} to see them).`,
      );
    }
    for (let count = walk.missingFrom + 1; count < segments.length; count++) {
      missing.push({ absolute: absolutePath(root, segments.slice(0, count)), path: joinSegments(segments, count) });
    }
  }
  const stats = walk.missingFrom === undefined ? await lstatOrMissing(root, absolute, path) : undefined;
  if (create && stats) {
    throw refusal(
      "path_exists",
      `${quote(path)} already exists (${kindOf(stats)}), so it cannot be created. Choose another path, or change the existing file instead.`,
    );
  }
  if (!create) {
    if (!stats) throw notFound(segments, segments.length - 1, path);
    if (stats.isSymbolicLink()) {
      throw refusal(
        "path_is_symlink",
        `${quote(path)} is a symbolic link${await linkText(root, absolute)}; links are not written or deleted through. Use the path of the file it points to, if that is inside the workspace.`,
      );
    }
    if (stats.isDirectory()) {
      throw refusal("path_is_directory", `${quote(path)} is a directory, not a file. Give the path of a file.`);
    }
    if (!stats.isFile()) throw notRegular(path, kindOf(stats));
    // A write replaces the name, so another name of the inode would keep the old content; but
    // whether that other name is protected cannot be found without scanning the file system.
    if (guarded && (stats.nlink ?? 1) > 1) throw protectedRefusal(path, { kind: "hard-link", entry: path });
  }
  return remember(
    {
      root,
      path,
      exists: !create,
      size: stats?.size ?? 0,
      createsDirectories: Object.freeze(missing.map((directory) => directory.path)),
    },
    {
      purpose: "write",
      root,
      path,
      directories: walk.directories,
      absolute,
      identity: stats ? identityOf(stats) : undefined,
      mode: stats?.mode,
      version: stats ? { size: stats.size, ctimeMs: stats.ctimeMs } : undefined,
      missing,
      used: false,
    },
  );
}
