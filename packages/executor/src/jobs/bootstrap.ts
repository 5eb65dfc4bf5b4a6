import { appendFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { type GitContext, runGit } from "../git/git.js";
import { type CommitAuthor, serverExclusions } from "./checkout.js";
import { JobFailure } from "./job-failure.js";

/**
 * A bootstrap job's starting tree: the reference architecture cloned (shallow, its branch, with
 * its own token in the clone's environment only), or an empty repository. Either way a git
 * repository with the server's identity and exclusions, so the agent's tools and the no-edit
 * probe see a tree. Resolves with the commit the pass starts from (none for an empty start).
 */
export async function prepareBootstrapCheckout(options: {
  readonly checkout: string;
  readonly cwd: string;
  readonly reference: { readonly url: string; readonly branch: string } | undefined;
  readonly referenceAuth: Readonly<Record<string, string>>;
  readonly author: CommitAuthor;
  readonly git: GitContext;
}): Promise<{ readonly startSha: string | undefined }> {
  const { checkout, git } = options;
  if (options.reference) {
    await runGit(
      [
        "clone",
        "--depth",
        "1",
        "--single-branch",
        "--branch",
        options.reference.branch,
        "--no-tags",
        options.reference.url,
        checkout,
      ],
      options.cwd,
      { ...git, env: { ...git.env, ...options.referenceAuth } },
    );
  } else {
    await mkdir(checkout, { recursive: true, mode: 0o700 });
    await runGit(["init", "--quiet", "--initial-branch", "main"], checkout, git);
  }
  await runGit(["config", "user.name", options.author.name], checkout, git);
  await runGit(["config", "user.email", options.author.email], checkout, git);
  await mkdir(join(checkout, ".git", "info"), { recursive: true });
  await appendFile(join(checkout, ".git", "info", "exclude"), serverExclusions());
  const head = await runGit(["rev-parse", "--verify", "--quiet", "HEAD"], checkout, git).then(
    (sha) => sha.trim(),
    () => undefined,
  );
  return { startSha: head };
}

/**
 * The end of a bootstrap job: the tree the agent left (tracked and new files, without what git
 * ignores: install output, the sentinels, the context files) becomes a new history of one
 * commit, force-pushed to the target's base branch. An empty tree is refused (`empty-tree`)
 * and nothing is pushed. Resolves with the branch and the commit.
 */
export async function publishBootstrap(options: {
  readonly checkout: string;
  /** A directory of the job's for the new history's git directory (outside the checkout). */
  readonly gitDirectory: string;
  readonly targetUrl: string;
  readonly branch: string;
  readonly targetAuth: Readonly<Record<string, string>>;
  readonly author: CommitAuthor;
  readonly message: string;
  readonly git: GitContext;
}): Promise<{ readonly branch: string; readonly commit: string }> {
  const { checkout, git } = options;
  const files = (await runGit(["ls-files", "--cached", "--others", "--exclude-standard", "-z"], checkout, git))
    .split("\0")
    .filter(Boolean);
  if (files.length === 0) {
    throw new JobFailure("empty-tree", "The agent left an empty tree; nothing was pushed to the target repository.");
  }
  await rm(options.gitDirectory, { recursive: true, force: true });
  // A git directory of its own: the checkout's history (the reference's) is not carried over.
  const fresh = (args: readonly string[], extra: Readonly<Record<string, string>> = {}) =>
    runGit(["--git-dir", options.gitDirectory, "--work-tree", checkout, ...args], checkout, {
      ...git,
      env: { ...git.env, ...extra },
    });
  await runGit(["init", "--quiet", "--bare", "--initial-branch", options.branch, options.gitDirectory], checkout, git);
  await fresh(["config", "core.bare", "false"]);
  await fresh(["config", "user.name", options.author.name]);
  await fresh(["config", "user.email", options.author.email]);
  // Added by name, in batches, so what the old index ignored stays out whatever the new one would say.
  for (let at = 0; at < files.length; at += 500) await fresh(["add", "--force", "--", ...files.slice(at, at + 500)]);
  await fresh(["commit", "--quiet", "--no-verify", "-m", options.message]);
  const commit = (await fresh(["rev-parse", "HEAD"])).trim();
  await fresh(
    ["push", "--no-verify", "--force", options.targetUrl, `${commit}:refs/heads/${options.branch}`],
    options.targetAuth,
  );
  return { branch: options.branch, commit };
}
