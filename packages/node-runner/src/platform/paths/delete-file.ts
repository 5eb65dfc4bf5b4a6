import { randomBytes } from "node:crypto";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { identityOf, sameIdentity } from "./identity.js";
import { errorCode, ioFailure } from "./io-error.js";
import { stateOf } from "./resolution.js";
import type { WriteTarget } from "./resolve-write.js";
import { changed } from "./shared-refusals.js";
import { lstatOrMissing, verifyDirectories } from "./walk.js";

/**
 * Unlinks an existing regular file validated by `resolveForWrite` (`create: false`, which
 * already refused a directory with `path_is_directory` and a link with `path_is_symlink`).
 * Just before, the directories on the way and the file are checked again: `path_changed` if
 * any was replaced or became a link. Empty parent directories are kept.
 *
 * The file is first renamed to a unique name beside it, the directories are checked again,
 * and only that unique name is unlinked. Node has no `unlinkat`, so a directory swapped for a
 * link between a check and a call by path is followed; this way a swap before the rename
 * moves a file (it is moved back when the check after it sees the swap) instead of deleting
 * it, and a swap after it makes the unlink find nothing, since only the renamed file has
 * that name.
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
  const parent = state.absolute.slice(0, state.absolute.lastIndexOf("/"));
  const doomed = `${parent}/.castellan-${randomBytes(8).toString("hex")}.deleted`;
  try {
    await root.operations.rename(state.absolute, doomed);
  } catch (error) {
    if (["ENOENT", "ENOTDIR"].includes(errorCode(error) ?? "")) throw changed(path, path);
    throw ioFailure(error, path);
  }
  try {
    await verifyDirectories(root, state.directories, path);
    const moved = await lstatOrMissing(root, doomed, path);
    if (!moved?.isFile() || !sameIdentity(identityOf(moved), identity)) throw changed(path, path);
  } catch (error) {
    // The rename went somewhere it should not have, or what it moved is not the file: put it back.
    await root.operations.rename(doomed, state.absolute).catch(() => undefined);
    throw error;
  }
  try {
    await root.operations.unlink(doomed);
  } catch (error) {
    if (["ENOENT", "ENOTDIR"].includes(errorCode(error) ?? "")) throw changed(path, path);
    throw ioFailure(error, path);
  }
}
