import type { CheckoutGit } from "../../git/checkout-git.js";
import { GitCommandError } from "../../git/git.js";
import { JobFailure } from "../../registry/job-failure.js";
import type { SharedBody } from "../body/body-fields.js";
import type { BranchCheckout, JobRun } from "../run/job-run.js";

/** The directory a blueprint job's commit takes, and nothing else. */
export const blueprintDirectory = "blueprints";

/** One file of the committed `blueprints/` tree. */
export interface BlueprintFile {
  readonly path: string;
  /** The blob's sha. */
  readonly sha: string;
  readonly bytes: number;
}

const inBlueprints = (path: string) => path === blueprintDirectory || path.startsWith(`${blueprintDirectory}/`);

/**
 * The end of a blueprint pass: the server's commit takes only `blueprints/` as the agent left
 * it, on top of the pass's start (the agent's own commits are folded away, history is never
 * reset below the start); every other path the agent changed, committed or not, is named in
 * `ignoredChanges` and left out. No `blueprints/` at all is `no-blueprints`. Resolves with
 * the commit (the start itself when `blueprints/` did not change) and its `blueprints/` tree.
 * Every git step runs in the job's sandbox; what it lists is data.
 */
export async function commitBlueprints(options: {
  /** Git on the checkout, in the job's sandbox. */
  readonly git: CheckoutGit;
  readonly startSha: string | undefined;
  readonly label: string;
}): Promise<{
  readonly commit: string;
  readonly tree: readonly BlueprintFile[];
  readonly ignoredChanges: readonly string[];
}> {
  const run = (args: readonly string[]) => options.git.run(args);
  const split = (text: string) => text.split("\0").filter(Boolean);
  const changed = options.startSha
    ? split(await run(["diff", "--name-only", "-z", options.startSha, "--"]))
    : split(await run(["ls-files", "--cached", "-z"]));
  const untracked = split(await run(["ls-files", "--others", "--exclude-standard", "-z"]));
  const ignoredChanges = [...new Set([...changed, ...untracked].filter((path) => !inBlueprints(path)))].sort();
  // Back to the start, the working tree kept: only blueprints/ is staged again.
  if (options.startSha) await run(["reset", "--quiet", "--mixed", options.startSha]);
  const present = split(
    await run(["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", blueprintDirectory]),
  );
  if (present.length === 0) {
    throw new JobFailure("no-blueprints", "The agent left no blueprints/ directory; nothing was committed.", {
      ignoredChanges,
    });
  }
  await run(["add", "--all", "--", blueprintDirectory]);
  const staged = await run(["diff", "--cached", "--quiet"]).then(
    () => false,
    (error: unknown) => {
      if (error instanceof GitCommandError && error.exitCode === 1) return true;
      throw error;
    },
  );
  if (staged) {
    await run([
      "commit",
      "--quiet",
      "--no-verify",
      "-m",
      `castellan blueprint: ${blueprintDirectory}/ (${options.label})`,
      "-m",
      "Committed by the Castellan executor: only blueprints/ of what the agent left.",
    ]);
  }
  const commit = (await run(["rev-parse", "HEAD"])).trim();
  const tree = split(await run(["ls-tree", "-r", "-l", "-z", commit, "--", `${blueprintDirectory}/`])).map((line) => {
    const [meta, path] = line.split("\t") as [string, string];
    const [, , sha, size] = meta.split(/\s+/) as [string, string, string, string];
    return { path, sha, bytes: Number(size) };
  });
  return { commit, tree, ignoredChanges };
}

/**
 * Phase `push`, first half, of a blueprint job: the server's commit of `blueprints/` only (see
 * {@link commitBlueprints}); {@link pushBranch} then publishes it.
 */
export async function blueprintCommit(run: JobRun<SharedBody, BranchCheckout>): Promise<void> {
  await run.work.update({ phase: "push" });
  const blueprint = await commitBlueprints({
    git: run.cloned.git,
    startSha: run.cloned.startSha,
    label: `${run.work.jobId}, ${run.firstPass}`,
  });
  const { report } = run.findings;
  report.commit = blueprint.commit;
  report.tree = blueprint.tree.map((file) => ({ ...file }));
  report.ignoredChanges = [...blueprint.ignoredChanges];
}
