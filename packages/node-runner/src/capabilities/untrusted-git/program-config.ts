// Git configuration that names a program to run, a file to read as more configuration, or a
// place to send objects. In a checkout an agent can write, each of these is the agent's choice;
// a git that the host runs over such a checkout would run it as the host's user. The host never
// does (see docs/architecture.md, "Trust boundary"); this list is how what was found is named.

/**
 * Patterns of config keys (as `git config --list` prints them: section and variable lower-case,
 * a subsection as written) that run a program, read another file as config, or redirect a
 * transport. Bound: matched against whole keys only.
 */
export const programConfigPatterns: readonly RegExp[] = Object.freeze([
  /^core\.(fsmonitor|sshcommand|pager|editor|askpass|gitproxy|hookspath|alternaterefscommand)$/,
  /^sequence\.editor$/,
  /^pager\..+$/,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^(difftool|mergetool)\..+\.cmd$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^merge\..+\.driver$/,
  /^credential\.(.+\.)?helper$/,
  /^uploadpack\.packobjectshook$/,
  /^remote\..+\.(uploadpack|receivepack)$/,
  /^include\.path$/,
  /^includeif\..+\.path$/,
  /^gpg\.(.+\.)?program$/,
  /^protocol\.(.+\.)?allow$/,
  /^url\..+\.(insteadof|pushinsteadof)$/,
  /^interactive\.difffilter$/,
  /^ssh\.variant$/,
]);

/** True when `key` (as `git config --list` prints it) is one of {@link programConfigPatterns}. */
export function isProgramConfigKey(key: string): boolean {
  return programConfigPatterns.some((pattern) => pattern.test(key));
}

/** One config entry, or one git file, that the host refused to honour outside the sandbox. */
export interface RefusedGitConfig {
  /** The config key (`core.fsmonitor`), or the file's role (`commondir`, `alternates`, `gitdir`). */
  readonly key: string;
  /** Where git read it: `file:.git/config`, an included file's path, or the git file itself. */
  readonly origin: string;
  /** The repository it belongs to, relative to the checkout: `.` for the checkout itself. */
  readonly repository: string;
}

/**
 * The program-naming entries of one repository's `git config --list --show-scope --show-origin
 * --includes -z` output (records of `scope NUL origin NUL key LF value NUL`). Entries of the
 * `system` scope are the host's own and those of the `command` scope are the caller's own
 * overrides, both left out; every other scope (local, worktree, and the global config of a home
 * the sandbox can write) is the agent's to choose. Values are never
 * returned: they may hold a credential.
 */
export function findProgramConfig(listing: string, repository: string): RefusedGitConfig[] {
  const fields = listing.split("\u0000");
  const found: RefusedGitConfig[] = [];
  const seen = new Set<string>();
  for (let at = 0; at + 2 < fields.length; at += 3) {
    const scope = fields[at] ?? "";
    const origin = fields[at + 1] ?? "";
    const entry = fields[at + 2] ?? "";
    const newline = entry.indexOf("\n");
    const key = newline === -1 ? entry : entry.slice(0, newline);
    if (scope === "system" || scope === "command" || !isProgramConfigKey(key)) continue;
    const id = `${key}\u0000${origin}`;
    if (seen.has(id)) continue;
    seen.add(id);
    found.push({ key, origin, repository });
  }
  return found;
}
