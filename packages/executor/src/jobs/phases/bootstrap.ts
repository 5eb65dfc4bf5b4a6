import { appendFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  createProtectedPlaceholders,
  neutralizeFiltersPrelude,
  sandboxedGitCommandLine,
  shellArgument,
} from "@castellan/node-runner";
import { type CommitAuthor, serverExclusions } from "../../git/checkout.js";
import type { CheckoutGit } from "../../git/checkout-git.js";
import { type GitContext, runGit } from "../../git/git.js";
import { gitAuthEnvironment } from "../../git/git-auth.js";
import type { PublishRepository } from "../../git/publish-repository.js";
import { JobFailure } from "../../registry/job-failure.js";
import type { BootstrapBody } from "../body/bootstrap-body.js";
import type { ClonedCheckout, JobRun } from "../run/job-run.js";
import type { JobSetup } from "../run/job-setup.js";

/**
 * A bootstrap job's starting tree: the reference architecture cloned (shallow, its branch, with
 * its own token in the clone's environment only), or an empty repository. Either way a git
 * repository with the server's identity and exclusions and the protected entries' placeholders
 * (see prepareCheckout), so the agent's tools and the no-edit
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
  await createProtectedPlaceholders(checkout);
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
 * and nothing is pushed. The commit is made by git in the job's sandbox, in a git directory of
 * the exchange area (the checkout's own history and config are not carried over), and comes to
 * the server as a bundle; the push runs from the server's publish repository. Resolves with
 * the branch and the commit.
 */
export async function publishBootstrap(options: {
  /** Git on the checkout, in the job's sandbox. */
  readonly git: CheckoutGit;
  readonly publish: PublishRepository;
  readonly targetUrl: string;
  readonly branch: string;
  readonly targetAuth: Readonly<Record<string, string>>;
  readonly author: CommitAuthor;
  readonly message: string;
}): Promise<{ readonly branch: string; readonly commit: string }> {
  const { git, publish } = options;
  const files = (await git.run(["ls-files", "--cached", "--others", "--exclude-standard", "-z"]))
    .split("\0")
    .filter(Boolean);
  if (files.length === 0) {
    throw new JobFailure("empty-tree", "The agent left an empty tree; nothing was pushed to the target repository.");
  }
  await publish.initEmpty();
  const name = publish.bundleName("bootstrap");
  const directory = publish.exchangePath("bootstrap.git");
  const fresh = (args: readonly string[]) =>
    sandboxedGitCommandLine(["--git-dir", directory, "--work-tree", ".", ...args]);
  // Added by name from the old index's listing, so what it ignored stays out whatever the new one would say.
  const script = [
    neutralizeFiltersPrelude,
    "set -e",
    `rm -rf ${shellArgument(directory)}`,
    sandboxedGitCommandLine(["init", "--quiet", "--bare", "--initial-branch", options.branch, directory]),
    fresh(["config", "core.bare", "false"]),
    `${sandboxedGitCommandLine(["ls-files", "--cached", "--others", "--exclude-standard", "-z"])} | ${fresh(["add", "--force", "--pathspec-from-file=-", "--pathspec-file-nul"])}`,
    fresh([
      "-c",
      `user.name=${options.author.name}`,
      "-c",
      `user.email=${options.author.email}`,
      "commit",
      "--quiet",
      "--no-verify",
      "-m",
      options.message,
    ]),
    sandboxedGitCommandLine([
      "--git-dir",
      directory,
      "bundle",
      "create",
      "--quiet",
      publish.exchangePath(name),
      "HEAD",
    ]),
  ].join("\n");
  let commit: string;
  try {
    await git.script(script);
    commit = await publish.fetchFromExchange(name, `refs/castellan/bootstrap`);
  } finally {
    await rm(publish.exchangePath(name), { force: true });
    await rm(directory, { recursive: true, force: true });
  }
  await publish.push({
    url: options.targetUrl,
    commit,
    branch: options.branch,
    force: true,
    auth: options.targetAuth,
  });
  return { branch: options.branch, commit };
}

/**
 * Phase `clone` of a bootstrap job: its reference (with the reference's own token) or an
 * empty repository, then git on the checkout in the job's sandbox. Nothing is published as the
 * job goes: {@link publishHistory} writes the target once, at the end.
 */
export async function cloneReference(setup: JobSetup<BootstrapBody>): Promise<ClonedCheckout> {
  const { work, body } = setup;
  await work.update({ phase: "clone" });
  const { startSha } = await prepareBootstrapCheckout({
    checkout: setup.directories.checkout,
    cwd: work.directory,
    reference: body.reference,
    referenceAuth: gitAuthEnvironment(body.reference?.token, setup.redactor),
    author: setup.options.commitAuthor,
    git: setup.git,
  });
  if (startSha !== undefined && startSha !== work.baseSha) await work.update({ baseSha: startSha });
  setup.watch.activity();
  return { startSha, baseSha: startSha, git: setup.openCheckoutGit() };
}

/** Phase `push` of a bootstrap job: the tree the agent left, as a new history force-pushed to the target's base branch. */
export async function publishHistory(run: JobRun<BootstrapBody>): Promise<void> {
  const { work, body } = run;
  await work.update({ phase: "push" });
  const published = await publishBootstrap({
    git: run.cloned.git,
    publish: run.publish,
    targetUrl: body.repo.url,
    branch: body.repo.baseBranch,
    targetAuth: gitAuthEnvironment(body.repo.token, run.redactor),
    author: run.options.commitAuthor,
    message: `Bootstrap${body.reference ? " from the reference architecture" : ""} (Castellan executor, ${work.jobId})`,
  });
  run.findings.report.branch = published.branch;
  run.findings.report.commit = published.commit;
}
