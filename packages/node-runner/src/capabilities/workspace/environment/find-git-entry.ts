import { realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * Whether a directory is inside a Git repository, by looking for a `.git` entry, not by asking
 * git: `found` when the directory or a parent holds a `.git` directory or file, `none` when
 * none does, `unknown` when the directory is missing, is no directory, or a lookup failed for
 * another reason than absence (e.g. `EACCES`), so absence cannot be told.
 */
export type GitEntrySearch = "found" | "none" | "unknown";

/**
 * Looks for `.git` in `directory` and each parent up to the file system root. The walk starts
 * from the real path (links resolved), as git's own discovery does from its physical working
 * directory; mount points are crossed (the probe lets git cross them too).
 */
export async function findGitEntry(directory: string): Promise<GitEntrySearch> {
  let current: string;
  try {
    current = await realpath(directory);
    if (!(await stat(current)).isDirectory()) return "unknown";
  } catch {
    return "unknown";
  }
  while (true) {
    try {
      const entry = await stat(join(current, ".git"));
      // Git takes only a directory or a `gitdir:` file; anything else is passed over, as git does.
      if (entry.isDirectory() || entry.isFile()) return "found";
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return "unknown";
    }
    const parent = dirname(current);
    if (parent === current) return "none";
    current = parent;
  }
}
