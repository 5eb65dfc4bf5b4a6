import { lstat, opendir } from "node:fs/promises";
import { join } from "node:path";
import type { ResolvedSandboxPolicy } from "../../commands/sandbox/config.js";
import type { WorkspaceRoot } from "../paths/root.js";

// The sandbox runtime protects the shell and tool settings and `.git/hooks` / `.git/config` of
// the host process's current directory (and one level of repositories below it), not of the
// workspace. So a workspace states them itself, for its root and each repository under it.

/** Files in a repository (or the root) that run code or widen access when rewritten. */
const protectedFiles = [
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".profile",
  ".ripgreprc",
  ".mcp.json",
];

/** Directories of editor and agent settings that can run tasks. */
const protectedDirectories = [".vscode", ".idea", ".claude"];

/** Castellan's own state under the root: never written by a command. */
const castellanDirectories = [".castellan", ".castellan-sessions"];

/**
 * The entries at a repository's root (the workspace root included) that an OS-sandboxed command
 * may never write: setting files, editor and agent setting directories, and Castellan's own
 * state. One that does not exist is still denied, and bubblewrap shows it to the command as a
 * character device (`/dev/null` mounted there), which `git add -A` refuses to add; a host that
 * lets its agent commit lists these in the repository's `.git/info/exclude`.
 */
export const workspaceProtectedRootEntries: readonly string[] = Object.freeze([
  ...castellanDirectories,
  ...protectedFiles,
  ...protectedDirectories,
]);

/** Home entries a command may not read, whatever the workspace. */
export const deniedHomeEntries = ["~/.ssh", "~/.gnupg", "~/.aws", "~/.netrc"];

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
  const denies = [...protectedFiles, ...protectedDirectories].map((name) => join(directory, name));
  const dotGit = join(directory, ".git");
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
      if (entry.name === ".git") {
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
 * and of each repository found under it now; no reads of `~/.ssh`, `~/.gnupg`, `~/.aws`,
 * `~/.netrc`; the declared network rules; and `declared`'s filesystem entries added.
 */
export async function workspaceSandboxPolicy(
  root: WorkspaceRoot,
  declared: ResolvedSandboxPolicy,
  home: string | undefined = process.env.HOME,
): Promise<ResolvedSandboxPolicy> {
  const rootPath = root.realPath;
  const denyWrite = [
    ...castellanDirectories.map((name) => join(rootPath, name)),
    ...(await repositoryDenies(rootPath)),
  ];
  for (const repository of await findNestedRepositories(rootPath))
    denyWrite.push(...(await repositoryDenies(repository)));
  const denyRead = home === undefined ? [] : deniedHomeEntries.map((entry) => join(home, entry.slice(2)));
  const unique = (paths: readonly string[]) => Object.freeze([...new Set(paths)]);
  return Object.freeze({
    network: declared.network,
    filesystem: Object.freeze({
      denyRead: unique([...denyRead, ...declared.filesystem.denyRead]),
      allowRead: unique(declared.filesystem.allowRead),
      allowWrite: unique([rootPath, ...declared.filesystem.allowWrite]),
      denyWrite: unique([...denyWrite, ...declared.filesystem.denyWrite]),
    }),
  });
}
