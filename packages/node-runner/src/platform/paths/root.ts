import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { errorMessage } from "@castellan/harness";
import { type FileIdentity, identityOf } from "./identity.js";
import { nodeWorkspaceOperations, type WorkspaceOperations, type WorkspaceStats } from "./operations.js";
import { WorkspaceRootError } from "./root-error.js";

/**
 * One bound workspace root: the directory every workspace path is resolved beneath. Make it
 * with {@link bindWorkspaceRoot} or {@link bindWorkspaceRootSync}; the functions of this
 * layer refuse a root made any other way. POSIX only. The root's own ancestors are trusted:
 * its identity is checked on each use, but a directory above it being replaced is not seen.
 */
export interface WorkspaceRoot {
  /** The `file:` URL the root was bound with (a copy; changing it changes nothing). */
  readonly url: URL;
  /** The root directory's canonical absolute path (every link resolved), captured when bound. */
  readonly realPath: string;
  /**
   * Every file-system call made through this root goes here. Tools call this layer's
   * functions, never these directly: a path given here is not checked.
   */
  readonly operations: WorkspaceOperations;
  /**
   * True when writes through this root may reach the protected entries (`.git` internals,
   * Castellan's state, shell and tool settings, hard-linked files); false (the default) refuses
   * them with `path_protected`. Set when bound, through {@link WorkspaceRootOptions}.
   */
  readonly allowsProtectedWrites: boolean;
}

/** How a root is bound. */
export interface WorkspaceRootOptions {
  /**
   * Let writes through the root reach the entries the OS sandbox denies to commands. Default
   * false: they are refused with `path_protected`. Only for a host that runs commands
   * uncontained and wants its file tools to edit `.git`, `.bashrc` and the like.
   */
  readonly allowProtectedWrites?: boolean;
}

const identities = new WeakMap<WorkspaceRoot, FileIdentity>();

/**
 * Binds an existing directory as a workspace root, through `operations` (default: the local
 * file system). `root` is a `file:` URL, its text, or an absolute path; the directory's real
 * path and identity are captured now. Throws {@link WorkspaceRootError} when it is a relative
 * path or a URL other than `file:`, does not exist, is not a directory, or the platform is
 * Windows.
 */
export async function bindWorkspaceRoot(
  root: URL | string,
  operations: WorkspaceOperations = nodeWorkspaceOperations,
  options: WorkspaceRootOptions = {},
): Promise<WorkspaceRoot> {
  const { url, path } = rootPath(root);
  let realPath: string;
  let stats: WorkspaceStats;
  try {
    realPath = await operations.realpath(path);
    stats = await operations.lstat(realPath);
  } catch (error) {
    throw unusable(root, error);
  }
  return bound(root, url, realPath, stats, operations, options);
}

/**
 * Like {@link bindWorkspaceRoot}, synchronously, for tool factories that cannot wait: the
 * root is captured with `node:fs` `realpathSync.native` and `lstatSync` on the local file
 * system, whatever `operations` is. `operations` (default: the local file system) is used for
 * everything after that.
 */
export function bindWorkspaceRootSync(
  root: URL | string,
  operations: WorkspaceOperations = nodeWorkspaceOperations,
  options: WorkspaceRootOptions = {},
): WorkspaceRoot {
  const { url, path } = rootPath(root);
  let realPath: string;
  let stats: WorkspaceStats;
  try {
    realPath = realpathSync.native(path);
    stats = lstatSync(realPath);
  } catch (error) {
    throw unusable(root, error);
  }
  return bound(root, url, realPath, stats, operations, options);
}

/** Internal to this folder: the identity captured when `root` was bound; throws a `TypeError` for a root not made by this module. */
export function rootIdentity(root: WorkspaceRoot): FileIdentity {
  const identity = identities.get(root);
  if (!identity) {
    throw new TypeError("A workspace root must come from bindWorkspaceRoot or bindWorkspaceRootSync.");
  }
  return identity;
}

/** Internal to this folder: the absolute path of a workspace path's segments (`[]` is the root). */
export function absolutePath(root: WorkspaceRoot, segments: readonly string[]): string {
  if (segments.length === 0) return root.realPath;
  return `${root.realPath === "/" ? "" : root.realPath}/${segments.join("/")}`;
}

/**
 * Internal to this folder: the segments of an absolute path beneath the root (`[]` for the root itself), or undefined
 * when it is outside. Whole segments are compared, so `/x/root-evil` is not inside `/x/root`.
 */
export function segmentsInside(root: WorkspaceRoot, path: string): string[] | undefined {
  if (path === root.realPath) return [];
  const prefix = root.realPath === "/" ? "/" : `${root.realPath}/`;
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length);
  const segments = rest.split("/");
  // A canonical path has none of these; anything else is not trusted to be inside.
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return undefined;
  return segments;
}

function rootPath(root: URL | string): { url: URL; path: string } {
  // Paths are joined and compared with `/`; a Windows path would not be contained.
  if (process.platform === "win32") {
    throw new WorkspaceRootError(root, "Workspace roots are supported on POSIX systems only.");
  }
  let url: URL;
  if (typeof root === "string" && isAbsolute(root)) {
    url = pathToFileURL(root);
  } else {
    try {
      url = new URL(root);
    } catch (error) {
      const relative = typeof root === "string";
      throw new WorkspaceRootError(
        root,
        relative
          ? `The workspace root ${JSON.stringify(root)} is a relative path; give an absolute path (resolve it against the directory you mean first) or a file: URL of a directory.`
          : `The workspace root ${String(root)} is not a URL; give a file: URL or an absolute path of a directory.`,
        { cause: error },
      );
    }
  }
  if (url.protocol !== "file:") {
    throw new WorkspaceRootError(
      root,
      `The workspace root ${url.href} is not a file: URL; give a file: URL of a directory.`,
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new WorkspaceRootError(
      root,
      `The workspace root ${url.href} has a query or fragment; give a plain file: URL.`,
    );
  }
  try {
    return { url, path: fileURLToPath(url) };
  } catch (error) {
    throw new WorkspaceRootError(
      root,
      `The workspace root ${url.href} is not a local file path: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
}

function bound(
  given: URL | string,
  url: URL,
  realPath: string,
  stats: WorkspaceStats,
  operations: WorkspaceOperations,
  options: WorkspaceRootOptions,
): WorkspaceRoot {
  if (!stats.isDirectory()) {
    throw new WorkspaceRootError(given, `The workspace root ${url.href} is not a directory.`);
  }
  const root: WorkspaceRoot = Object.freeze({
    url: new URL(url.href),
    realPath,
    operations,
    allowsProtectedWrites: options.allowProtectedWrites === true,
  });
  identities.set(root, identityOf(stats));
  return root;
}

function unusable(root: URL | string, error: unknown): WorkspaceRootError {
  const code = (error as { code?: unknown } | null)?.code;
  const reason = code === "ENOENT" ? "does not exist" : `cannot be used (${errorMessage(error)})`;
  return new WorkspaceRootError(root, `The workspace root ${String(root)} ${reason}; give an existing directory.`, {
    cause: error,
  });
}
