// Tests that read other projects' test data (conformance scenarios) from `../shared/conformance/`
// beside the repository, never copied into it. A checkout without that folder skips those tests,
// saying so in the skipped suite's name (the console guard fails a file that prints while
// loading); under CI the folder is required, so a missing one fails instead of passing quietly.
//
//   const scenarios = sharedConformanceDir("apply-patch");
//   describe.skipIf(scenarios === undefined)(`apply-patch scenarios${sharedConformanceSkipNote("apply-patch", scenarios)}`, …)
import { existsSync, statSync } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: the parent of test-support/. */
const repositoryRoot = fileURLToPath(new URL("../", import.meta.url));

/** Where shared conformance data lives: `../shared/conformance/` from the repository root. */
export const sharedConformanceRoot = join(repositoryRoot, "..", "shared", "conformance");

/** True when the environment variable `CI` is set to anything but ``, `0` or `false`. */
export function runningUnderCi(): boolean {
  const value = process.env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/**
 * The absolute path of `../shared/conformance/<name>/` when that folder exists, or undefined when
 * it does not (the calling test skips, with {@link sharedConformanceSkipNote} in its name).
 * Under CI ({@link runningUnderCi}) a missing folder throws an Error instead. `name` is a path
 * inside that folder (`apply-patch`); absolute paths and `..` segments are refused (TypeError).
 */
export function sharedConformanceDir(name: string): string | undefined {
  if (name === "" || isAbsolute(name) || name.split(/[\\/]/).includes("..")) {
    throw new TypeError(`sharedConformanceDir: ${JSON.stringify(name)} must be a relative path inside the folder.`);
  }
  const path = join(sharedConformanceRoot, name);
  if (existsSync(path) && statSync(path).isDirectory()) return path;
  if (runningUnderCi()) {
    throw new Error(
      `The shared conformance data ${path} is required under CI (CI=${process.env.CI}) but is missing: check out the shared folder beside the repository.`,
    );
  }
  return undefined;
}

/**
 * The text to append to a suite's name: empty when `found` is a path, otherwise a loud note that
 * the suite is skipped because `../shared/conformance/<name>/` is missing.
 */
export function sharedConformanceSkipNote(name: string, found: string | undefined): string {
  if (found !== undefined) return "";
  return ` — SKIPPED: ../shared/conformance/${name}/ is missing beside the repository (it is required under CI)`;
}

/** One entry of a {@link TreeSnapshot}: a file's bytes, or `"directory"`. */
export type TreeEntry = Buffer | "directory";

/**
 * A directory tree as relative POSIX paths (`a/b.txt`, without `./`) to entries, every file and
 * directory below the root listed (the root itself is not), in sorted order, so that two trees
 * compare with `toEqual` and a leftover empty directory is a difference.
 */
export type TreeSnapshot = Record<string, TreeEntry>;

/**
 * Reads the tree below `root` recursively into a {@link TreeSnapshot}. Symbolic links and other
 * non-regular entries are not followed: they throw an Error naming them, since conformance data
 * holds none.
 */
export async function snapshotTree(root: string): Promise<TreeSnapshot> {
  const entries: [string, TreeEntry][] = [];
  const visit = async (directory: string): Promise<void> => {
    for (const name of await readdir(directory)) {
      const path = join(directory, name);
      const key = relative(root, path).split(sep).join("/");
      const stats = await lstat(path);
      if (stats.isDirectory()) {
        entries.push([key, "directory"]);
        await visit(path);
      } else if (stats.isFile()) {
        entries.push([key, await readFile(path)]);
      } else {
        throw new Error(`snapshotTree: ${path} is neither a regular file nor a directory.`);
      }
    }
  };
  await visit(root);
  entries.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return Object.fromEntries(entries);
}
