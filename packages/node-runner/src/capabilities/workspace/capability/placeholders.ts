import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import {
  castellanStateDirectories,
  gitEntryName,
  protectedSettingDirectories,
  protectedSettingFiles,
} from "../../../platform/paths/protected-entries.js";
import { findNestedRepositories } from "../../../platform/sandbox/workspace-policy.js";

// Each sandbox runtime (one per sandbox worker, so one per workspace Session) mounts over a
// protected entry that does not exist by making an empty mount point on the host, and removes
// it once none of its own commands runs. A second runtime on the same root sees that mount
// point as an existing entry and binds it; when the first removes it, the second's next
// bubblewrap fails ("Can't find source path") and its running one loses that deny. A host that
// runs several sandboxed Sessions on one root at once makes the entries itself first: every
// runtime then binds an entry it did not make and never removes.

/**
 * Makes each protected entry of `root` and of the repositories under it that does not exist:
 * the setting files (`.bashrc`, `.gitconfig`, ...) as empty files, the setting and Castellan
 * state directories (`.vscode`, `.castellan`, ...) as empty directories, and `.git/hooks` where
 * `.git` is a directory. For hosts that open several OS-sandboxed Sessions on one root at the
 * same time (the executor's agent and its own git); call it before the first opens. Nothing
 * that exists is touched or followed: a file is created exclusively and a directory without
 * `recursive`, so a name that is taken (a symlink included) is left as it is. The entries stay
 * until the host removes the root. Resolves with the paths it made.
 */
export async function createProtectedPlaceholders(root: string): Promise<readonly string[]> {
  const made: string[] = [];
  const file = async (path: string) => {
    try {
      await (await open(path, "wx", 0o600)).close();
      made.push(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  };
  const directory = async (path: string) => {
    try {
      await mkdir(path, { mode: 0o700 });
      made.push(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR / ENOENT: `.git` is a file or is absent, so there are no hooks to hold.
      if (code !== "EEXIST" && code !== "ENOTDIR" && code !== "ENOENT") throw error;
    }
  };
  const repository = async (directoryPath: string) => {
    for (const name of protectedSettingFiles) await file(join(directoryPath, name));
    for (const name of protectedSettingDirectories) await directory(join(directoryPath, name));
    await directory(join(directoryPath, gitEntryName, "hooks"));
  };
  for (const name of castellanStateDirectories) await directory(join(root, name));
  await repository(root);
  for (const nested of await findNestedRepositories(root)) await repository(nested);
  return Object.freeze(made);
}
