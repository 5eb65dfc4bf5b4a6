// The one list of workspace entries that neither a sandboxed command nor a file tool may write.
// The OS sandbox's policy (sandbox/workspace-policy.ts) and the write resolver (protected-check.ts)
// both read it, so the two cannot drift apart.

/** Files at a repository's root (the workspace root included) that run code or widen access when rewritten. */
export const protectedSettingFiles: readonly string[] = Object.freeze([
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".profile",
  ".ripgreprc",
  ".mcp.json",
]);

/** Directories of editor and agent settings at a repository's root that can run tasks. */
export const protectedSettingDirectories: readonly string[] = Object.freeze([".vscode", ".idea", ".claude"]);

/** Castellan's own state, at the workspace root only. */
export const castellanStateDirectories: readonly string[] = Object.freeze([".castellan", ".castellan-sessions"]);

/** The name of a repository's git directory (or `gitdir:` file), protected at any depth. */
export const gitEntryName = ".git";

/** What each repository directory protects besides its `.git`: the setting files and directories. */
export const repositorySettingEntries: readonly string[] = Object.freeze([
  ...protectedSettingFiles,
  ...protectedSettingDirectories,
]);

/** Why a path is protected, for the refusal's message and for tests. */
export type ProtectedRule =
  /** A `.git` entry, or anything beneath one, at any depth. */
  | { readonly kind: "git"; readonly entry: string }
  /** `.castellan/` or `.castellan-sessions/` at the root. */
  | { readonly kind: "castellan-state"; readonly entry: string }
  /** A shell or tool setting at the root or at a nested repository's root. */
  | { readonly kind: "setting"; readonly entry: string }
  /** An existing file with more than one name: its other names cannot be checked. */
  | { readonly kind: "hard-link"; readonly entry: string };

/**
 * A name as a case-insensitive file system compares it, folded the widest way: compatibility
 * normalized (NFKC), then upper- and lower-cased, so `.GIT`, `.Bashrc` and `.baſhrc` (long s)
 * all fold to the protected name. Folding more than any file system does only refuses more.
 */
export function foldName(name: string): string {
  return name.normalize("NFKC").toUpperCase().toLowerCase();
}

const folded = (names: readonly string[]) => new Set(names.map(foldName));
const settingNames = folded(repositorySettingEntries);
const castellanNames = folded(castellanStateDirectories);
const gitName = foldName(gitEntryName);

/** True when `name`, case-folded, is `.git`. */
export function isGitEntry(name: string): boolean {
  return foldName(name) === gitName;
}

/** True when `name`, case-folded, is a setting file or directory that repositories protect. */
export function isSettingEntry(name: string): boolean {
  return settingNames.has(foldName(name));
}

/**
 * The rule a workspace path breaks by its names alone (no I/O): a `.git` segment anywhere, or
 * a root entry that is Castellan state or a setting. Settings inside nested repositories need
 * the file system; see `protectedRuleOf`.
 */
export function lexicalProtectedRule(segments: readonly string[]): ProtectedRule | undefined {
  const git = segments.find(isGitEntry);
  if (git !== undefined) return { kind: "git", entry: segments.slice(0, segments.indexOf(git) + 1).join("/") };
  const first = segments[0];
  if (first === undefined) return undefined;
  if (castellanNames.has(foldName(first))) return { kind: "castellan-state", entry: first };
  if (isSettingEntry(first)) return { kind: "setting", entry: first };
  return undefined;
}
