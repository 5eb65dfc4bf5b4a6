import type { Ignore } from "ignore";
import { lazyModule } from "../../../platform/modules/lazy-module.js";
import type { WorkspaceDirent } from "../../../platform/paths/operations.js";
import { castellanStateDirectories, foldName } from "../../../platform/paths/protected-entries.js";
import { absolutePath, type WorkspaceRoot } from "../../../platform/paths/root.js";
import { defaultMaxRulesFileBytes, readRulesFile } from "./read-rules-file.js";

const ignore = lazyModule<typeof import("ignore")>("ignore");

/** Name of the per-directory rules file. */
export const rulesFileName = ".gitignore";

/** Name of the directory every walk skips, at any depth (a `.git` file of a worktree too). */
export const gitDirectoryName = ".git";

/** How rules files are read. */
export interface IgnoreOptions {
  /** Largest rules file applied, in bytes; a larger one is left out whole. Default 1,048,576 (1 MiB); 0 to 67,108,864. */
  readonly maxRulesFileBytes?: number;
}

/**
 * The ignore rules in force in one directory of a walk: its own `.gitignore` (if any), then
 * those of each directory above it up to the root, then the root's `.git/info/exclude`, in
 * git's order of precedence (the deepest file first). Made by {@link rootIgnoreScope},
 * {@link enterIgnoreDirectory} or {@link ignoreScopeFor}; immutable, so a walk can keep one
 * per open directory.
 */
export interface IgnoreScope {
  /** The directory's segments beneath the root (`[]` for the root). */
  readonly directory: readonly string[];
  /** The rules of one file, or undefined for a directory with none. */
  readonly rules: Ignore | undefined;
  /** Segments of the directory the rules belong to (their patterns are relative to it). */
  readonly base: readonly string[];
  /** The next scope out (lower precedence); undefined past the last one. */
  readonly outer: IgnoreScope | undefined;
  /** The bound in force for rules files, carried to nested scopes. */
  readonly maxRulesFileBytes: number;
}

/**
 * The scope of the root directory: `.git/info/exclude` (read only when `.git` and `.git/info`
 * are real directories, not links) below the root's `.gitignore`. Git's global excludes file
 * (`core.excludesFile`) is not read: it is outside the root.
 */
export async function rootIgnoreScope(root: WorkspaceRoot, options: IgnoreOptions = {}): Promise<IgnoreScope> {
  const maxRulesFileBytes = checkedMax(options.maxRulesFileBytes);
  const exclude = (await gitInfoIsDirectory(root))
    ? await readRulesFile(root, absolutePath(root, [gitDirectoryName, "info", "exclude"]), maxRulesFileBytes)
    : undefined;
  const excludeScope: IgnoreScope = {
    directory: [],
    rules: rulesOf(exclude),
    base: [],
    outer: undefined,
    maxRulesFileBytes,
  };
  const gitignore = await readRulesFile(root, absolutePath(root, [rulesFileName]), maxRulesFileBytes);
  return freeze({ directory: [], rules: rulesOf(gitignore), base: [], outer: excludeScope, maxRulesFileBytes });
}

/**
 * The scope of the directory at `directory` (a child of `outer`'s directory), loading its
 * `.gitignore` as the walk enters it. Pass the directory's `entries` when they were just
 * read: the file is then opened only when an entry of that name is a regular file (a link is
 * never read); without them it is opened and skipped when absent.
 */
export async function enterIgnoreDirectory(
  root: WorkspaceRoot,
  outer: IgnoreScope,
  directory: readonly string[],
  entries?: readonly WorkspaceDirent[],
): Promise<IgnoreScope> {
  const present = entries === undefined || entries.some((entry) => entry.name === rulesFileName && entry.isFile());
  const text = present
    ? await readRulesFile(root, absolutePath(root, [...directory, rulesFileName]), outer.maxRulesFileBytes)
    : undefined;
  const rules = rulesOf(text);
  // A directory without rules adds no level: tests only walk the files that have some.
  if (!rules) return freeze({ ...innermost(outer), directory: [...directory] });
  return freeze({
    directory: [...directory],
    rules,
    base: [...directory],
    outer,
    maxRulesFileBytes: outer.maxRulesFileBytes,
  });
}

/**
 * The scope of the directory at `directory` beneath the root, loading every rules file from
 * the root down to it: for a walk that starts below the root. The directories on the way
 * are taken as validated by the caller (not links).
 */
export async function ignoreScopeFor(
  root: WorkspaceRoot,
  directory: readonly string[],
  options: IgnoreOptions = {},
): Promise<IgnoreScope> {
  let scope = await rootIgnoreScope(root, options);
  for (let count = 1; count <= directory.length; count++) {
    scope = await enterIgnoreDirectory(root, scope, directory.slice(0, count));
  }
  return scope;
}

/**
 * True when the entry at `segments` (a child of `scope`'s directory) is ignored: always for
 * `.git`, and for the root's `.castellan/` and `.castellan-sessions/` (Castellan's own state,
 * transcripts included, compared case-folded), which a walk from the root never enters;
 * otherwise the deepest rules file with a pattern matching it decides, its last
 * matching pattern winning (`!pattern` re-includes), as in git. A directory that is ignored
 * is not entered, so nothing beneath it can be re-included, as git documents.
 *
 * Where a rules file ignores a directory that a deeper one re-includes, that outer file is
 * not consulted for the entries inside: the `ignore` package reports only the directory's
 * exclusion for them. The same holds inside a walk's start directory when it is itself
 * ignored, so searching an ignored directory by its path searches it.
 */
export function isIgnored(scope: IgnoreScope, segments: readonly string[], isDirectory: boolean): boolean {
  if (segments[segments.length - 1] === gitDirectoryName) return true;
  if (segments.length === 1 && isCastellanState(segments[0] as string)) return true;
  for (const level of levelsFor(scope, segments.slice(0, -1))) {
    const relative = segments.slice(level.baseLength).join("/");
    const result = level.rules.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

const castellanState = new Set(castellanStateDirectories.map(foldName));

/** True for a root entry name that is Castellan's own state (`.castellan`, `.castellan-sessions`), case-folded. */
export function isCastellanState(name: string): boolean {
  return castellanState.has(foldName(name));
}

interface Level {
  readonly rules: Ignore;
  readonly baseLength: number;
}

// The levels that answer for the entries of a directory, deepest first; the same for all of
// them, so worked out once for the scope's own directory (a walk makes one scope per directory).
const levelCache = new WeakMap<IgnoreScope, readonly Level[]>();

/** The rules files consulted for the entries of `directory`. */
function levelsFor(scope: IgnoreScope, directory: readonly string[]): readonly Level[] {
  const own =
    directory.length === scope.directory.length && directory.every((name, index) => scope.directory[index] === name);
  const cached = own ? levelCache.get(scope) : undefined;
  if (cached) return cached;
  const levels: Level[] = [];
  for (let level: IgnoreScope | undefined = scope; level !== undefined; level = level.outer) {
    const rules = level.rules;
    if (!rules) continue;
    const inside = directory.slice(level.base.length);
    // The package answers for a path beneath a directory it excludes with that exclusion,
    // not with what matches the path itself; the walk is inside it, so this level is moot.
    if (inside.length > 0 && rules.test(`${inside.join("/")}/`).ignored) continue;
    levels.push({ rules, baseLength: level.base.length });
  }
  if (own) levelCache.set(scope, levels);
  return levels;
}

function rulesOf(text: string | undefined): Ignore | undefined {
  if (text === undefined) return undefined;
  const rules = ignore()({ allowRelativePaths: true }).add(text);
  // A file of only comments and blank lines adds no level.
  return text.split(/\r?\n/).some((line) => line.trim() !== "" && !line.startsWith("#")) ? rules : undefined;
}

/** The scope that holds rules, skipping levels of directories without a rules file. */
function innermost(scope: IgnoreScope): Omit<IgnoreScope, "directory"> {
  return { rules: scope.rules, base: scope.base, outer: scope.outer, maxRulesFileBytes: scope.maxRulesFileBytes };
}

async function gitInfoIsDirectory(root: WorkspaceRoot): Promise<boolean> {
  for (const segments of [[gitDirectoryName], [gitDirectoryName, "info"]]) {
    try {
      const stats = await root.operations.lstat(absolutePath(root, segments));
      if (!stats.isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function checkedMax(value: number | undefined): number {
  if (value === undefined) return defaultMaxRulesFileBytes;
  if (!Number.isSafeInteger(value) || value < 0 || value > 67_108_864) {
    throw new RangeError(`maxRulesFileBytes must be an integer from 0 to 67,108,864, not ${value}.`);
  }
  return value;
}

function freeze(scope: IgnoreScope): IgnoreScope {
  return Object.freeze(scope);
}
