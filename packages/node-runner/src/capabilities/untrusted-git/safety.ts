import { isAbsolute } from "node:path";

// The environment probe (workspace/environment) runs only read-only plumbing over a directory
// an agent may write, and where it runs follows where the agent's commands run. In a Session
// whose Castellan command tools are sandboxed (an OS `workspace()`, the sandbox plugin), its
// git runs in that Session's sandbox (sandboxed-probe-git.ts): there the agent can write `.git`
// internals the sandbox does not protect (`commondir`, `info/`, alternates), so a host git
// would read configuration the agent chose. Everything that changes or publishes a checkout
// runs in the sandbox too (sandboxed-git.ts). Only a Session with no sandbox keeps the probe on
// the host (host-git.ts): its agent's commands, if it has any, already run uncontained as the
// host's user, and without commands the file tools refuse all of `.git` (`path_protected`).
// When the probe cannot tell which case a Session is, it runs no git at all.
//
// The options and variables below apply on both sides. In the sandbox they are not the
// boundary; they keep a planted filter from holding `status` until its timeout and the answers
// the same. On the host they are all there is: the agent may have chosen the directory's
// `.git/config`, `.git/info/attributes` and `.gitattributes`, so no command the agent, the
// repository or a config file names may run. The overrides are decided from what git itself
// lists (a config reached through `commondir` or `include.path` included), and the probe never
// runs a command that fetches, pushes, commits or diffs. What its commands (`rev-parse`,
// `symbolic-ref`, `config --get-regexp`, `status --porcelain`) could otherwise run, checked
// against git 2.39 (each case has a marker test), and how it is stopped:
//
// - `core.fsmonitor` (a hook script, or `true` for the daemon): `status` queries it.
//   `-c core.fsmonitor=false`.
// - Hooks: `status` runs `post-index-change` when it refreshes and writes the index; no other
//   hook is reachable from these commands (none updates a ref). `--no-optional-locks` (and
//   GIT_OPTIONAL_LOCKS=0) stops the index write, `-c core.hooksPath=/dev/null` leaves no hook
//   to find whatever `core.hooksPath` the repository sets.
// - `filter.<driver>.clean` / `.process`: `status` cleans every worktree file whose stat data
//   differs from the index but whose size does not, to tell a real change from a touched file,
//   through the driver a `filter=` attribute names. There is no switch to turn attributes or
//   filters off (git 2.40's `--attr-source` still reads `info/attributes`), and deciding
//   dirtiness without git's content comparison would report every touched file. So every
//   driver any config scope defines (a driver without a command runs nothing) is listed first
//   with `git config --get-regexp`, which runs nothing, and overridden with an empty `clean`,
//   `smudge` and `process` (git runs a filter only when its command is non-empty) and
//   `required=false`. The overrides go through GIT_CONFIG_COUNT/KEY/VALUE rather than `-c`: a
//   driver name may contain `=`, which `-c name=value` would split at. Git before 2.31 ignores
//   those variables, so the listing is given a canary driver through them, and status runs
//   only if git lists it. Drivers from global and system config (git-lfs) are neutralized too:
//   a file they track whose stat data changed may then read as dirty. Residual risk: a driver
//   written into the config between the listing and `status` (milliseconds apart) by a
//   process running meanwhile is not seen. When the listing fails, `status` is not run.
// - Lazy fetches: in a partial clone, `status` fetches blobs it lacks for rename detection,
//   which runs `remote.<name>.uploadpack`, `core.sshCommand`, a remote helper or a credential
//   helper named in config. `--no-renames` stops the need; GIT_NO_LAZY_FETCH=1 (git 2.45+)
//   and `-c protocol.allow=never` (every transport refused) stop any fetch that remains.
// - Submodules: `status` runs `git status` inside each submodule, where that repository's own
//   config (and filters, not listed here) apply. `--ignore-submodules=dirty` keeps the check
//   to the submodule's commit, read in-process: a submodule at another commit still counts
//   as dirty, changes inside one do not.
// - Pagers (`core.pager`, `pager.status`): only for a terminal; `--no-pager`, GIT_PAGER=cat,
//   and git's output is a pipe anyway.
// - Terminal prompts and askpass: GIT_TERMINAL_PROMPT=0, stdin closed, no askpass variables.
// - Not reachable from these commands, so not overridden (the marker test plants the first
//   three): `diff.external` and `diff.<driver>.command` / `.textconv` (porcelain `status`
//   prints no patch); `status.*` (`status.branch`, `status.showStash` and
//   `status.submoduleSummary` affect only the long format, `status.showUntrackedFiles` and
//   `status.renames` are replaced by explicit options); `core.untrackedCache` (runs nothing;
//   with optional locks off the index is not rewritten); `core.editor`, `sequence.editor`,
//   `gpg.*`, `merge.<driver>.driver`, `core.alternateRefsCommand`, `gc.auto` and maintenance
//   (other commands only); `alias.*` (a builtin cannot be aliased); `include.path` and
//   `core.excludesFile`/`core.attributesFile` read files only (a FIFO would block, and the
//   timeout ends it).
// - On the host the environment is built from nothing, so the Runner's own GIT_DIR,
//   GIT_CONFIG_PARAMETERS, GIT_EXEC_PATH, GIT_EXTERNAL_DIFF or GIT_TRACE* never reach git;
//   PATH keeps only absolute entries, so neither `git` nor a helper git looks up is found in
//   the working directory. HOME (and XDG_CONFIG_HOME) is kept: the user's global config holds
//   trust decisions such as `safe.directory`, which git keeps honouring, so a repository owned
//   by someone else is refused (its facts unknown) rather than trusted. In the sandbox the
//   environment is the Session's policy, as for the agent's commands, with the variables that
//   choose a repository, index or config list unset.

/**
 * A filter driver given to the listing of drivers through GIT_CONFIG_COUNT: git lists it only
 * if it honours those variables, which the neutralization of the others relies on.
 */
export const canaryFilterDriver = "castellan-probe-canary";

/** The options every probe invocation starts with, before the git command itself. */
export const gitSafetyArguments: readonly string[] = [
  "--no-pager",
  "--no-optional-locks",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "protocol.allow=never",
];

/**
 * The variables every probe invocation sets, on the host and in the sandbox alike: a fixed
 * locale for parsable output, no prompt, no optional lock (so no index write), no lazy fetch,
 * no pager, and discovery across mount points (the probe has already found `.git` in a parent).
 */
export const probeGitVariables: Readonly<Record<string, string>> = Object.freeze({
  LC_ALL: "C",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_NO_LAZY_FETCH: "1",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_DISCOVERY_ACROSS_FILESYSTEM: "1",
});

/**
 * The GIT_CONFIG_COUNT/KEY/VALUE variables that empty `clean`, `smudge` and `process` of each
 * of `filterDrivers` (names as `git config` lists them) and make none `required`; none at all
 * for no driver. Four entries a driver, in the order given.
 */
export function filterOverrideVariables(filterDrivers: readonly string[]): Record<string, string> {
  const overrides: [string, string][] = [];
  for (const driver of filterDrivers) {
    overrides.push(
      [`filter.${driver}.clean`, ""],
      [`filter.${driver}.smudge`, ""],
      [`filter.${driver}.process`, ""],
      [`filter.${driver}.required`, "false"],
    );
  }
  const variables: Record<string, string> = {};
  if (overrides.length === 0) return variables;
  variables.GIT_CONFIG_COUNT = String(overrides.length);
  overrides.forEach(([key, value], index) => {
    variables[`GIT_CONFIG_KEY_${index}`] = key;
    variables[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return variables;
}

/**
 * The complete environment of a host probe invocation: {@link probeGitVariables} and the
 * {@link filterOverrideVariables} of `filterDrivers`. `base` is the Runner's environment, from
 * which only PATH (its absolute entries), HOME and XDG_CONFIG_HOME are taken.
 */
export function gitEnvironment(
  filterDrivers: readonly string[] = [],
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const path = (base.PATH ?? "")
    .split(":")
    .filter((entry) => entry !== "" && isAbsolute(entry))
    .join(":");
  const environment: NodeJS.ProcessEnv = { PATH: path === "" ? "/usr/bin:/bin" : path, ...probeGitVariables };
  if (base.HOME !== undefined) environment.HOME = base.HOME;
  if (base.XDG_CONFIG_HOME !== undefined) environment.XDG_CONFIG_HOME = base.XDG_CONFIG_HOME;
  return { ...environment, ...filterOverrideVariables(filterDrivers) };
}

/**
 * The filter driver names in the output of `git config -z --name-only --get-regexp '^filter\.'`:
 * each key is `filter.<driver>.<variable>`, and the driver (a config subsection, case kept) may
 * itself contain dots, or be empty. Keys without a subsection are passed over: they define no driver.
 */
export function filterDriverNames(listing: string): string[] {
  const drivers = new Set<string>();
  for (const key of listing.split("\u0000")) {
    if (!key.startsWith("filter.")) continue;
    const end = key.lastIndexOf(".");
    // `filter..clean` is a driver named "" (`[filter ""]`), which `filter=` selects.
    if (end >= "filter.".length) drivers.add(key.slice("filter.".length, end));
  }
  return [...drivers];
}
