import { lstat, stat as statPath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { BrowserToolError } from "./errors.js";

/** A `savePath` resolved under the capture workspace root. */
export interface CapturePath {
  /** The workspace path as the model gave it, normalised to `/` separators. */
  readonly relative: string;
  /** The absolute file path. */
  readonly file: string;
}

function refused(message: string): BrowserToolError {
  return new BrowserToolError("browser_capture_path_refused", message);
}

/** The root's directory path, from a `file:` URL (or its text); undefined for none. */
export function captureRootPath(root: URL | string | undefined): string | undefined {
  if (root === undefined) return undefined;
  const path = fileURLToPath(root);
  return path.length > 1 && path.endsWith(sep) ? path.slice(0, -1) : path;
}

/**
 * Resolves `savePath` lexically: relative, no `..`, no empty or `.` segments, inside `root`.
 * `browser_capture_path_refused` otherwise, or when no root is configured.
 */
export function resolveCapturePath(root: string | undefined, savePath: string): CapturePath {
  if (root === undefined) {
    throw refused("No capture workspace root is configured, so savePath cannot be used; capture without savePath.");
  }
  if (savePath.includes("\0") || savePath.includes("\\") || isAbsolute(savePath) || /^[a-zA-Z]:/.test(savePath)) {
    throw refused("savePath must be a relative path with / separators inside the capture workspace.");
  }
  const segments = savePath.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw refused('savePath must name a file inside the capture workspace, with no "..", "." or empty segments.');
  }
  const file = join(root, ...segments);
  const inside = relative(root, file);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
    throw refused("savePath must stay inside the capture workspace.");
  }
  return { relative: segments.join("/"), file };
}

/**
 * Checks the file system: every parent from the root down is a real directory (no symlink),
 * the parent exists, and the file is absent or a regular file (not a symlink).
 */
export async function checkCapturePath(root: string, path: CapturePath): Promise<void> {
  // The root is the host's choice and may itself be a link; only what lies beneath is checked.
  const rootStat = await statPath(root).catch(() => undefined);
  if (!rootStat?.isDirectory())
    throw refused("The capture workspace root is not a directory; capture without savePath.");
  const parents: string[] = [];
  for (let at = dirname(path.file); at !== root && at.startsWith(root); at = dirname(at)) parents.unshift(at);
  for (const parent of parents) {
    const stat = await lstat(parent).catch(() => undefined);
    if (stat === undefined) {
      throw refused(
        `The directory of savePath ${JSON.stringify(path.relative)} does not exist; save into an existing directory.`,
      );
    }
    if (stat.isSymbolicLink() || !stat.isDirectory()) {
      throw refused(
        `A parent of savePath ${JSON.stringify(path.relative)} is a symlink or not a directory; save elsewhere.`,
      );
    }
  }
  const stat = await lstat(path.file).catch(() => undefined);
  if (stat !== undefined && (stat.isSymbolicLink() || !stat.isFile())) {
    throw refused(`savePath ${JSON.stringify(path.relative)} is a symlink or not a regular file; choose another name.`);
  }
}
