/**
 * What one probe observed about a working directory and the Git worktree it is in. A fact git
 * could not give (it failed, timed out, or is not installed) is `undefined`: unknown, never
 * guessed.
 */
export interface WorkspaceEnvironment {
  /** The working directory probed: the `file:` URL it was given, as a normalized absolute path. */
  readonly workingDirectory: string;
  readonly git: GitEnvironment;
}

/**
 * The Git side of a {@link WorkspaceEnvironment}: `none` when no `.git` (directory or file) is in
 * the working directory or any parent; `unknown` when that could not be checked (the working
 * directory is missing, not a directory, or unreadable); otherwise a repository's facts.
 */
export type GitEnvironment = { readonly kind: "none" } | { readonly kind: "unknown" } | GitRepositoryFacts;

/** The facts of the repository holding the working directory; each is `undefined` when unknown. */
export interface GitRepositoryFacts {
  readonly kind: "repository";
  /** The top of the worktree (`git rev-parse --show-toplevel`), an absolute path. */
  readonly root?: string;
  readonly worktree?: GitWorktree;
  readonly branch?: GitBranch;
  readonly head?: GitHead;
  /**
   * Whether `git status --porcelain` lists anything: changes to tracked files, staged or not,
   * untracked files that are not ignored, or a submodule at another commit.
   */
  readonly dirty?: boolean;
}

/**
 * Which worktree the working directory is in: the main one, or a linked one (`git worktree add`)
 * whose main worktree is at `mainWorktree` (undefined when the repository's common directory is
 * not a `.git` directory inside a worktree, as with a bare repository).
 */
export type GitWorktree = { readonly kind: "main" } | { readonly kind: "linked"; readonly mainWorktree?: string };

/** What HEAD names: a branch (even one without commits yet), or no branch (`detached`). */
export type GitBranch = { readonly kind: "branch"; readonly name: string } | { readonly kind: "detached" };

/** The commit HEAD resolves to, or `unborn`: HEAD names a branch that has no commit yet. */
export type GitHead = { readonly kind: "commit"; readonly sha: string } | { readonly kind: "unborn" };
