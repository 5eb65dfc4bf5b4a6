import { identityOf, sameIdentity } from "./identity.js";
import { errorCode, ioFailure } from "./io-error.js";
import { quote, refusal } from "./refusal.js";
import { stateOf } from "./resolution.js";
import type { WriteTarget } from "./resolve-write.js";
import { changed } from "./shared-refusals.js";
import { lstatOrMissing, verifyDirectories } from "./walk.js";

/**
 * Unlinks an existing regular file validated by `resolveForWrite` (`create: false`, which
 * already refused a directory with `path_is_directory` and a link with `path_is_symlink`).
 * Just before unlinking, the directories on the way and the file are checked again:
 * `path_changed` if any was replaced or became a link. Empty parent directories are kept.
 */
export async function deleteFile(target: WriteTarget): Promise<void> {
  const state = stateOf(target, ["write"], "deleteFile");
  if (state.used) throw new TypeError("This WriteTarget was already written or deleted; resolve the path again.");
  const { root, path, identity } = state;
  if (identity === undefined) {
    throw refusal("path_not_found", `${quote(path)} was resolved as a new file, so there is nothing to delete.`);
  }
  state.used = true;
  await verifyDirectories(root, state.directories, path);
  const stats = await lstatOrMissing(root, state.absolute, path);
  if (!stats?.isFile() || !sameIdentity(identityOf(stats), identity)) throw changed(path, path);
  try {
    await root.operations.unlink(state.absolute);
  } catch (error) {
    if (["ENOENT", "ENOTDIR"].includes(errorCode(error) ?? "")) throw changed(path, path);
    throw ioFailure(error, path);
  }
}
