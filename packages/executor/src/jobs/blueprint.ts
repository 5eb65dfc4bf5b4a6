import { GitCommandError, type GitContext, runGit } from "../git/git.js";
import { JobFailure } from "./job-failure.js";

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
 */
export async function commitBlueprints(options: {
  readonly checkout: string;
  readonly git: GitContext;
  readonly startSha: string | undefined;
  readonly label: string;
}): Promise<{
  readonly commit: string;
  readonly tree: readonly BlueprintFile[];
  readonly ignoredChanges: readonly string[];
}> {
  const { checkout, git } = options;
  const split = (text: string) => text.split("\0").filter(Boolean);
  const changed = options.startSha
    ? split(await runGit(["diff", "--name-only", "-z", options.startSha, "--"], checkout, git))
    : split(await runGit(["ls-files", "--cached", "-z"], checkout, git));
  const untracked = split(await runGit(["ls-files", "--others", "--exclude-standard", "-z"], checkout, git));
  const ignoredChanges = [...new Set([...changed, ...untracked].filter((path) => !inBlueprints(path)))].sort();
  // Back to the start, the working tree kept: only blueprints/ is staged again.
  if (options.startSha) await runGit(["reset", "--quiet", "--mixed", options.startSha], checkout, git);
  const present = split(
    await runGit(
      ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", blueprintDirectory],
      checkout,
      git,
    ),
  );
  if (present.length === 0) {
    throw new JobFailure("no-blueprints", "The agent left no blueprints/ directory; nothing was committed.", {
      ignoredChanges,
    });
  }
  await runGit(["add", "--all", "--", blueprintDirectory], checkout, git);
  const staged = await runGit(["diff", "--cached", "--quiet"], checkout, git).then(
    () => false,
    (error: unknown) => {
      if (error instanceof GitCommandError && error.exitCode === 1) return true;
      throw error;
    },
  );
  if (staged) {
    await runGit(
      [
        "commit",
        "--quiet",
        "--no-verify",
        "-m",
        `castellan blueprint: ${blueprintDirectory}/ (${options.label})`,
        "-m",
        "Committed by the Castellan executor: only blueprints/ of what the agent left.",
      ],
      checkout,
      git,
    );
  }
  const commit = (await runGit(["rev-parse", "HEAD"], checkout, git)).trim();
  const tree = split(
    await runGit(["ls-tree", "-r", "-l", "-z", commit, "--", `${blueprintDirectory}/`], checkout, git),
  ).map((line) => {
    const [meta, path] = line.split("\t") as [string, string];
    const [, , sha, size] = meta.split(/\s+/) as [string, string, string, string];
    return { path, sha, bytes: Number(size) };
  });
  return { commit, tree, ignoredChanges };
}
