import { readdir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { errorCode } from "../../sentinels/bounded-file.js";

/** A walk of the checkout: its real path, and the notes the walk has to leave. */
export interface ContainedWalk {
  readonly root: string;
  readonly notes: string[];
}

/** An entry found inside the checkout. */
export interface FoundEntry {
  /** Relative to the checkout, `/`-separated, spelt as the entries are on disk. */
  readonly path: string;
  /** Its real path, every symlink resolved: inside the checkout. */
  readonly real: string;
}

/** The checkout itself, as the start of a walk. */
export function rootEntry(walk: ContainedWalk): FoundEntry {
  return { path: "", real: walk.root };
}

/**
 * The entry at `segments` below `from`, each segment matched against the actual entries
 * ignoring case (an exact spelling first), the last one a `kind`, the others directories.
 * Undefined when there is none that stays inside the checkout.
 */
export async function findPath(
  walk: ContainedWalk,
  from: FoundEntry,
  segments: readonly string[],
  kind: "file" | "directory",
): Promise<FoundEntry | undefined> {
  let current = from;
  for (const [index, segment] of segments.entries()) {
    const wanted = segment.toLowerCase();
    const names = (await entryNames(walk, current))
      .filter((name) => name.toLowerCase() === wanted)
      .sort((a, b) => Number(b === segment) - Number(a === segment));
    let next: FoundEntry | undefined;
    for (const name of names) {
      next = await follow(walk, current, name, index === segments.length - 1 ? kind : "directory");
      if (next !== undefined) break;
    }
    if (next === undefined) return undefined;
    current = next;
  }
  return current;
}

/**
 * Entry `name` of directory `parent` when it is a `kind`, following a symlink only while its
 * real path stays inside the checkout: one leading out is skipped with a note, since the
 * template is the one path the repository chooses that the server reads unasked, and a link
 * could aim it at the server's own files. A dangling link is simply not there.
 */
export async function follow(
  walk: ContainedWalk,
  parent: FoundEntry,
  name: string,
  kind: "file" | "directory",
): Promise<FoundEntry | undefined> {
  const path = parent.path === "" ? name : `${parent.path}/${name}`;
  let real: string;
  try {
    real = await realpath(join(parent.real, name));
  } catch {
    return undefined;
  }
  if (real !== walk.root && !real.startsWith(walk.root.endsWith(sep) ? walk.root : walk.root + sep)) {
    walk.notes.push(`\`${path}\` is a symlink leading outside the checkout; it was not followed.`);
    return undefined;
  }
  try {
    const stats = await stat(real);
    return (kind === "file" ? stats.isFile() : stats.isDirectory()) ? { path, real } : undefined;
  } catch {
    return undefined;
  }
}

/** The names in directory `entry`, sorted; none when it cannot be listed (a note unless it is simply missing). */
export async function entryNames(walk: ContainedWalk, entry: FoundEntry): Promise<string[]> {
  try {
    return (await readdir(entry.real)).sort();
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      walk.notes.push(`\`${entry.path === "" ? "." : entry.path}\` could not be listed (${code ?? "unknown error"}).`);
    }
    return [];
  }
}
