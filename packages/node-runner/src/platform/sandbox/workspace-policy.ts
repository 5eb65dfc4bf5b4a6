import { lstat, opendir } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { castellanStateDirectories, gitEntryName, repositorySettingEntries } from "../paths/protected-entries.js";
import type { WorkspaceRoot } from "../paths/root.js";
import type { ResolvedSandboxPolicy } from "./config.js";

// The sandbox runtime protects the shell and tool settings and `.git/hooks` / `.git/config` of
// the host process's current directory (and one level of repositories below it), not of the
// workspace. So a workspace states them itself, for its root and each repository under it,
// from the same list the file tools refuse (paths/protected-entries.ts).

/**
 * The entries at a repository's root (the workspace root included) that an OS-sandboxed command
 * may never write: setting files, editor and agent setting directories, and Castellan's own
 * state. One that does not exist is still denied, and bubblewrap shows it to the command as a
 * character device (`/dev/null` mounted there), which `git add -A` refuses to add; a host that
 * lets its agent commit lists these in the repository's `.git/info/exclude`. The file tools
 * refuse the same entries (`path_protected`), and all of `.git` besides.
 */
export const workspaceProtectedRootEntries: readonly string[] = Object.freeze([
  ...castellanStateDirectories,
  ...repositorySettingEntries,
]);

/**
 * Credential paths under the home directory that stay unreadable even when an `allowRead`
 * entry re-admits a directory above them (`~`, `~/.config`): only an entry naming one of them
 * exactly re-admits it.
 */
export const deniedHomeEntries: readonly string[] = Object.freeze([
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.netrc",
  "~/.npmrc",
  "~/.git-credentials",
  "~/.config/gh",
  "~/.docker",
  "~/.kube",
  "~/.config/gcloud",
  "~/.azure",
  "~/.pypirc",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
]);

/**
 * What a local workspace's commands may read of the home directory by default, read-only: the
 * caches and toolchains commands commonly need, none of which holds credentials. Not
 * `~/.gitconfig`, which may carry tokens (`credential.helper` scripts, `http.extraHeader`,
 * `url.<token>.insteadOf`): a host that wants it adds it to `filesystem.allowRead`.
 */
export const defaultHomeReadPaths: readonly string[] = Object.freeze([
  "~/.npm/_cacache",
  "~/.nvm/versions",
  "~/.volta/tools",
  "~/.local/bin",
  "~/.cargo/bin",
  "~/.rustup/toolchains",
]);

/** What commands may read of the home directory: `defaultHomeReadPaths`, or nothing. */
export type WorkspaceHomeReads = "tool-paths" | "none";

/** Where a workspace policy finds the home directory and how much of it commands read. */
export interface WorkspacePolicyHome {
  /** The home directory denied to commands. Default: `os.homedir()` (`$HOME` when set). */
  readonly home?: string | undefined;
  /** Default `"tool-paths"`. */
  readonly homeReads?: WorkspaceHomeReads;
}

/** How far below the root nested repositories are looked for, and how many directories at most. */
const nestedScan = { maxDepth: 8, maxDirectories: 20_000 };

async function kindOf(path: string): Promise<"directory" | "file" | "absent"> {
  try {
    const stats = await lstat(path);
    return stats.isDirectory() ? "directory" : "file";
  } catch {
    return "absent";
  }
}

/**
 * What one repository directory protects: its setting files and directories, and its `.git`:
 * `hooks` and `config` of a directory, a `.git` file as a whole, and, where there is none, the
 * name itself, so no command creates a `.git` there.
 */
async function repositoryDenies(directory: string): Promise<string[]> {
  const denies = repositorySettingEntries.map((name) => join(directory, name));
  const dotGit = join(directory, gitEntryName);
  const kind = await kindOf(dotGit);
  if (kind === "directory") denies.push(join(dotGit, "hooks"), join(dotGit, "config"));
  else denies.push(dotGit);
  return denies;
}

/** The repositories under `root` (not the root itself): directories holding a `.git`, links never followed. */
export async function findNestedRepositories(root: string): Promise<string[]> {
  const found: string[] = [];
  let visited = 0;
  const visit = async (directory: string, depth: number): Promise<void> => {
    if (depth > nestedScan.maxDepth || visited >= nestedScan.maxDirectories) return;
    visited++;
    let handle: Awaited<ReturnType<typeof opendir>>;
    try {
      handle = await opendir(directory);
    } catch {
      return;
    }
    const children: string[] = [];
    for await (const entry of handle) {
      if (entry.name === gitEntryName) {
        if (directory !== root) found.push(directory);
        continue;
      }
      if (entry.isDirectory()) children.push(join(directory, entry.name));
    }
    for (const child of children.sort()) await visit(child, depth + 1);
  };
  await visit(root, 0);
  return found;
}

/**
 * The OS sandbox policy of one workspace Session: writes only under the root's real path (and
 * the profile's own temporary directory, which the runtime adapter adds), never to the root's
 * `.castellan/` and `.castellan-sessions/`, nor to the settings and `.git` internals of the root
 * and of each repository found under it now; no reads of the home directory but
 * `defaultHomeReadPaths` (with `homeReads: "tool-paths"`, the default) and what `declared`
 * allows, and never of `deniedHomeEntries` unless named exactly; the declared network rules;
 * and `declared`'s filesystem entries added. A home of `/` is not denied as a whole.
 */
export async function workspaceSandboxPolicy(
  root: WorkspaceRoot,
  declared: ResolvedSandboxPolicy,
  options: WorkspacePolicyHome = {},
): Promise<ResolvedSandboxPolicy> {
  const home = options.home ?? homedir();
  const rootPath = root.realPath;
  const denyWrite = [
    ...castellanStateDirectories.map((name) => join(rootPath, name)),
    ...(await repositoryDenies(rootPath)),
  ];
  for (const repository of await findNestedRepositories(rootPath))
    denyWrite.push(...(await repositoryDenies(repository)));
  const inHome = (entry: string) => join(home, entry.slice(2));
  const denyRead = [...(resolve(home) === "/" ? [] : [home]), ...deniedHomeEntries.map(inHome)];
  const allowRead = (options.homeReads ?? "tool-paths") === "tool-paths" ? defaultHomeReadPaths.map(inHome) : [];
  const unique = (paths: readonly string[]) => Object.freeze([...new Set(paths)]);
  return Object.freeze({
    network: declared.network,
    filesystem: Object.freeze({
      denyRead: unique([...denyRead, ...declared.filesystem.denyRead]),
      allowRead: unique([...allowRead, ...declared.filesystem.allowRead]),
      allowWrite: unique([rootPath, ...declared.filesystem.allowWrite]),
      denyWrite: unique([...denyWrite, ...declared.filesystem.denyWrite]),
    }),
  });
}
