import { basename, dirname, isAbsolute } from "node:path";
import { canaryFilterDriver, filterDriverNames, type GitOutcome } from "../../untrusted-git/index.js";
import { findGitEntry } from "./find-git-entry.js";
import { hostProbeGit, type ProbeGit } from "./git-runners.js";
import type { ResolvedEnvironmentOptions } from "./options.js";
import type { GitBranch, GitHead, GitWorktree, WorkspaceEnvironment } from "./types.js";

/**
 * {@link probeWorkspaceEnvironment} with options already checked, its git invocations made
 * through `git` (default: on the host). Looking for `.git` reads only names and file types, so
 * it stays on the host whichever runner is given.
 */
export async function probeResolved(
  options: ResolvedEnvironmentOptions,
  git: ProbeGit = hostProbeGit(options),
): Promise<WorkspaceEnvironment> {
  const { workingDirectory } = options;
  const search = await findGitEntry(workingDirectory);
  if (search !== "found") return { workingDirectory, git: { kind: search } };
  const [root, gitDir, commonDir, symbolicHead, headCommit, dirty] = await Promise.all([
    git(["rev-parse", "--show-toplevel"]).then(pathOf),
    // Absolute paths need git 2.31+; what an older git prints is no single absolute path: unknown.
    git(["rev-parse", "--path-format=absolute", "--git-dir"]).then(pathOf),
    git(["rev-parse", "--path-format=absolute", "--git-common-dir"]).then(pathOf),
    git(["symbolic-ref", "-q", "HEAD"]),
    git(["rev-parse", "-q", "--verify", "HEAD"]),
    probeDirty(git),
  ]);
  const branch = branchOf(symbolicHead);
  return {
    workingDirectory,
    git: {
      kind: "repository",
      root,
      worktree: worktreeOf(gitDir, commonDir),
      branch,
      head: headOf(headCommit, branch),
      dirty,
    },
  };
}

/**
 * Lists the filter drivers config defines, then runs `git status` with all of them
 * neutralized (git-safety.ts says why). The listing is given a canary driver through the same
 * environment variables: when git does not list it, it ignores them (older than 2.31), and
 * status is not run; nor when the listing fails, since a driver not listed cannot be
 * neutralized. Untracked files count (`normal`, whatever `status.showUntrackedFiles` says);
 * submodules count only by their commit (`dirty`), and renames are not looked for
 * (`--no-renames`): neither changes whether anything is listed.
 */
async function probeDirty(git: ProbeGit): Promise<boolean | undefined> {
  const listing = await git(["config", "-z", "--name-only", "--get-regexp", "^filter\\."], {
    filterDrivers: [canaryFilterDriver],
  });
  if (listing.kind !== "exited" || listing.code !== 0) return undefined;
  const drivers = filterDriverNames(listing.stdout);
  // The canary stays in the list: a repository may define a driver of that name too.
  if (!drivers.includes(canaryFilterDriver)) return undefined;
  const status = await git(
    ["status", "--porcelain", "--untracked-files=normal", "--ignore-submodules=dirty", "--no-renames"],
    // Any output at all answers the question; a few KiB is plenty to know there was some.
    { filterDrivers: drivers, maxOutputBytes: 4096 },
  );
  // Porcelain status prints only after collecting everything, so output means success.
  if (status.kind === "overflowed") return true;
  if (status.kind === "exited" && status.code === 0) return status.stdout.length > 0;
  return undefined;
}

/** The single absolute path a successful rev-parse printed; undefined otherwise. */
function pathOf(outcome: GitOutcome): string | undefined {
  const line = lineOf(outcome);
  return line !== undefined && isAbsolute(line) ? line : undefined;
}

/** The one line (without its newline) a successful invocation printed; undefined otherwise. */
function lineOf(outcome: GitOutcome): string | undefined {
  if (outcome.kind !== "exited" || outcome.code !== 0) return undefined;
  const line = outcome.stdout.endsWith("\n") ? outcome.stdout.slice(0, -1) : outcome.stdout;
  // Several lines (or none) are not one answer; a path holding a newline reads as unknown.
  return line === "" || line.includes("\n") ? undefined : line;
}

/** `symbolic-ref -q HEAD`: 0 with the ref HEAD names, 1 when HEAD is no symbolic ref (detached). */
function branchOf(outcome: GitOutcome): GitBranch | undefined {
  if (outcome.kind === "exited" && outcome.code === 1) return { kind: "detached" };
  const ref = lineOf(outcome);
  if (ref === undefined) return undefined;
  // The full name, cut here rather than with `--short`, which turns `main` into `heads/main`
  // when a tag of that name exists. A HEAD naming a ref outside refs/heads/ keeps its full name.
  return { kind: "branch", name: ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref };
}

const objectName = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u;

/**
 * `rev-parse -q --verify HEAD`: 0 with HEAD's commit, 1 when HEAD does not resolve. Together
 * with HEAD naming a branch, that is an unborn branch (a repository or an orphan branch with
 * no commit yet); a branch ref that is corrupt would read the same, a repository fault the
 * probe does not tell apart.
 */
function headOf(outcome: GitOutcome, branch: GitBranch | undefined): GitHead | undefined {
  if (outcome.kind === "exited" && outcome.code === 1)
    return branch?.kind === "branch" ? { kind: "unborn" } : undefined;
  const sha = lineOf(outcome);
  return sha !== undefined && objectName.test(sha) ? { kind: "commit", sha } : undefined;
}

/**
 * Linked when the worktree's git directory is not the common one. The main worktree is the
 * directory holding the common `.git`; a common directory named otherwise belongs to a bare
 * repository (or one made with `--separate-git-dir`), whose main worktree cannot be told so.
 */
function worktreeOf(gitDir: string | undefined, commonDir: string | undefined): GitWorktree | undefined {
  if (gitDir === undefined || commonDir === undefined) return undefined;
  if (gitDir === commonDir) return { kind: "main" };
  return basename(commonDir) === ".git" ? { kind: "linked", mainWorktree: dirname(commonDir) } : { kind: "linked" };
}
