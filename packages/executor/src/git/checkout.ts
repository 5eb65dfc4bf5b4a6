import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createProtectedPlaceholders, workspaceProtectedRootEntries } from "@castellan/node-runner";
import { type GitContext, runGit } from "./git.js";

/** The commit identity the server sets in each checkout. */
export interface CommitAuthor {
  readonly name: string;
  readonly email: string;
}

/** The files the agent writes for the server at the checkout root, never committed. */
export const sentinelFiles: readonly string[] = Object.freeze([
  ".castellan-pr-description.md",
  ".castellan-follow-ups.json",
  ".castellan-effort.json",
]);

/** Where the server stages context files in the checkout, never committed. */
export const contextDirectory = ".castellan-context/";

/**
 * The lines every checkout of the server adds to `.git/info/exclude`: its sentinels and the
 * context files, and the entries the OS sandbox protects at the root (one that does not exist
 * shows to a command as a device node, which `git add -A` refuses; excluded, the agent's own
 * commits work, and tracked files stay tracked).
 */
export function serverExclusions(): string {
  return [
    "",
    "# Castellan: the server's files, never committed",
    ...sentinelFiles.map((name) => `/${name}`),
    `/${contextDirectory}`,
    "# Castellan: entries the OS sandbox protects at the root",
    ...workspaceProtectedRootEntries.map((name) => `/${name}`),
    "",
  ].join("\n");
}

/** What a prepared checkout starts from. */
export interface PreparedCheckout {
  /** The base branch's commit (the first clone's, kept across resumes). */
  readonly baseSha: string;
  /** The commit the pass starts from: the base, or the work branch's tip on a resume. */
  readonly startSha: string;
  /** True when a resumed run found the work branch on the remote and starts from its tip. */
  readonly onExistingBranch: boolean;
}

/**
 * Clones the job's repository into `checkout`: shallow and single-branch. A resumed run whose
 * work branch is on the remote clones that branch (and fetches the base commit, for the proof's
 * pre tree); otherwise the base branch, with the work branch made from it. Then the server's
 * commit identity and the exclusions of the sentinels and the context directory. Last, before
 * any Session opens on it, the protected entries the checkout lacks are made as empty
 * placeholders (`createProtectedPlaceholders`): the agent's Session and the server's own git
 * Session run sandboxes on this root at once, and neither may then remove a mount point the
 * other's bubblewrap binds. `auth` is the network commands' environment (the token's header);
 * the other commands never get it.
 */
export async function prepareCheckout(options: {
  readonly url: string;
  readonly baseBranch: string;
  readonly workBranch: string;
  readonly checkout: string;
  /** Where clone runs from (the job's directory). */
  readonly cwd: string;
  readonly resumed: boolean;
  readonly baseSha: string | undefined;
  readonly author: CommitAuthor;
  readonly git: GitContext;
  readonly auth: Readonly<Record<string, string>>;
}): Promise<PreparedCheckout> {
  const { git, checkout } = options;
  const networked: GitContext = { ...git, env: { ...git.env, ...options.auth } };
  const clone = (branch: string) =>
    runGit(
      ["clone", "--depth", "1", "--single-branch", "--branch", branch, "--no-tags", options.url, checkout],
      options.cwd,
      networked,
    );
  let onExistingBranch = false;
  if (options.resumed && options.baseSha) {
    const remote = await runGit(
      ["ls-remote", "--heads", options.url, `refs/heads/${options.workBranch}`],
      options.cwd,
      networked,
    );
    onExistingBranch = remote.trim() !== "";
  }
  let baseSha: string;
  if (onExistingBranch) {
    await clone(options.workBranch);
    baseSha = options.baseSha as string;
    await runGit(["fetch", "--depth", "1", "--no-tags", "origin", baseSha], checkout, networked);
  } else {
    await clone(options.baseBranch);
    baseSha = (await runGit(["rev-parse", "HEAD"], checkout, git)).trim();
    await runGit(["checkout", "-b", options.workBranch], checkout, git);
  }
  const startSha = (await runGit(["rev-parse", "HEAD"], checkout, git)).trim();
  // The agent's own commits carry the server's identity too.
  await runGit(["config", "user.name", options.author.name], checkout, git);
  await runGit(["config", "user.email", options.author.email], checkout, git);
  await mkdir(join(checkout, ".git", "info"), { recursive: true });
  await appendFile(join(checkout, ".git", "info", "exclude"), serverExclusions());
  await createProtectedPlaceholders(checkout);
  return { baseSha, startSha, onExistingBranch };
}
