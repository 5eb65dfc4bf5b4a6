import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { type FileIdentity, identityOf, sameIdentity } from "./identity.js";
import { errorCode, ioFailure } from "./io-error.js";
import { type ResolutionState, stateOf } from "./resolution.js";
import type { WriteTarget } from "./resolve-write.js";
import type { WorkspaceRoot } from "./root.js";
import { changed } from "./shared-refusals.js";
import { type CheckedDirectory, lstatOrMissing, verifyDirectories } from "./walk.js";

// O_EXCL: the temporary file is always new, never something placed there (with O_CREAT it
// also refuses a link at that name).
const tempFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NOCTTY;

/** Mode a new file is created with; the process umask applies, as for any created file. */
export const newFileMode = 0o644;

/** A parent directory made (or found made meanwhile) for a new file; `ours` when this call made it. */
interface MadeDirectory extends CheckedDirectory {
  readonly ours: boolean;
}

/** What {@link writeFileAtomically} did. */
export interface WriteResult {
  /** The workspace path written. */
  readonly path: string;
  /** Bytes written. */
  readonly bytes: number;
  /** True when the file did not exist before. */
  readonly created: boolean;
  /** Workspace paths of the parent directories created for it, outermost first. */
  readonly createdDirectories: readonly string[];
}

/**
 * Replaces (or creates) the target's content with `data` (a string is written as UTF-8): the
 * bytes go to a new temporary file beside the target (same directory, unique name, `O_EXCL`),
 * which is then renamed over it. An existing file keeps its permission bits (`mode & 0o777`;
 * owner, set-id bits and other links are not kept); a new one gets {@link newFileMode}
 * less the umask. A hard link to the old file keeps the old content, since a new inode
 * replaces it. Missing parents planned by `resolveForWrite` are created first (mode 0o777
 * less the umask), each checked as they are made. Just before the rename the directories on
 * the way, the temporary file and the target are checked again (`path_changed` if any was
 * replaced or became a link, or the target was modified since `resolveForWrite`). On any failure the target is untouched, and the temporary file
 * and the directories this call made are removed (each only while its path still names it).
 * The data is fully written but not fsynced. A target is written once: resolve again after.
 */
export async function writeFileAtomically(target: WriteTarget, data: Uint8Array | string): Promise<WriteResult> {
  const state = stateOf(target, ["write"], "writeFileAtomically");
  if (typeof data !== "string" && !(data instanceof Uint8Array)) {
    throw new TypeError("writeFileAtomically: data must be a Uint8Array or a string.");
  }
  if (state.used) throw new TypeError("This WriteTarget was already written or deleted; resolve the path again.");
  state.used = true;
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const { root, path } = state;
  await verifyDirectories(root, state.directories, path);
  const created: MadeDirectory[] = [];
  let temp: TempFile | undefined;
  try {
    for (const directory of state.missing) created.push(await makeDirectory(root, directory, path));
    temp = await createTemp(root, state, bytes);
    await verifyDirectories(root, [...state.directories, ...created], path);
    await verifyTarget(root, state, temp);
    await root.operations.rename(temp.absolute, state.absolute);
  } catch (error) {
    if (temp) await removeTemp(root, temp);
    await removeDirectories(root, created);
    // A directory on the way, or the temporary file, went away or became a link meanwhile.
    if (["ENOENT", "ENOTDIR", "ELOOP"].includes(errorCode(error) ?? "")) throw changed(path, path);
    throw ioFailure(error, path);
  }
  return Object.freeze({
    path,
    bytes: bytes.length,
    created: state.identity === undefined,
    createdDirectories: Object.freeze(created.filter((directory) => directory.ours).map((directory) => directory.path)),
  });
}

/** Creates one planned parent and checks what is there is a directory, not a link. */
async function makeDirectory(
  root: WorkspaceRoot,
  directory: { readonly absolute: string; readonly path: string },
  shown: string,
): Promise<MadeDirectory> {
  let ours = true;
  try {
    await root.operations.mkdir(directory.absolute);
  } catch (error) {
    // Made meanwhile by someone else: fine if it is a real directory, checked next.
    if (errorCode(error) !== "EEXIST") throw error;
    ours = false;
  }
  const stats = await lstatOrMissing(root, directory.absolute, shown);
  if (!stats?.isDirectory()) throw changed(directory.path, shown);
  return { absolute: directory.absolute, path: directory.path, identity: identityOf(stats), ours };
}

/** The temporary file written beside the target. */
interface TempFile {
  readonly absolute: string;
  readonly identity: FileIdentity;
}

/** Writes the whole of `bytes` to a new temporary file beside the target, with the target's permission bits. */
async function createTemp(root: WorkspaceRoot, state: ResolutionState, bytes: Uint8Array): Promise<TempFile> {
  const parent = state.absolute.slice(0, state.absolute.lastIndexOf("/"));
  const absolute = `${parent}/.castellan-${randomBytes(8).toString("hex")}.tmp`;
  // An existing file's copy stays private until it gets that file's bits.
  const handle = await root.operations.open(absolute, tempFlags, state.mode === undefined ? newFileMode : 0o600);
  let temp: TempFile | undefined;
  try {
    const stats = await handle.stat();
    temp = { absolute, identity: identityOf(stats) };
    if (!stats.isFile()) throw changed(state.path, state.path);
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
      if (bytesWritten <= 0) throw new Error(`Writing ${quote(state.path)} made no progress.`);
      offset += bytesWritten;
    }
    if (state.mode !== undefined) await handle.chmod(state.mode & 0o777);
    await handle.close();
    return temp;
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (temp) await removeTemp(root, temp);
    throw error;
  }
}

/** Checks the temporary file is ours and the target is as validated: the same file, unmodified, or still absent. */
async function verifyTarget(root: WorkspaceRoot, state: ResolutionState, temp: TempFile): Promise<void> {
  const tempStats = await lstatOrMissing(root, temp.absolute, state.path);
  if (!tempStats?.isFile() || !sameIdentity(identityOf(tempStats), temp.identity)) {
    throw changed(state.path, state.path);
  }
  const stats = await lstatOrMissing(root, state.absolute, state.path);
  if (state.identity === undefined) {
    if (stats) {
      throw refusal(
        "path_changed",
        `${quote(state.path)} was created by someone else while this call was writing it, so it was left as it is. Read it, then decide whether to change it.`,
      );
    }
    return;
  }
  const unchanged =
    stats?.isFile() === true &&
    sameIdentity(identityOf(stats), state.identity) &&
    stats.size === state.version?.size &&
    stats.ctimeMs === state.version.ctimeMs;
  if (!unchanged) {
    throw refusal(
      "path_changed",
      `${quote(state.path)} was changed by someone else since this call checked it, so it was left as it is. Read it again, then decide whether to change it.`,
    );
  }
}

/**
 * Removes the temporary file, only if what is at its path is still that file: after a swap
 * it may sit wherever its directory went, and nothing else may be removed in its place.
 */
async function removeTemp(root: WorkspaceRoot, temp: TempFile): Promise<void> {
  const stats = await root.operations.lstat(temp.absolute).catch(() => undefined);
  if (stats?.isFile() && sameIdentity(identityOf(stats), temp.identity)) {
    await root.operations.unlink(temp.absolute).catch(() => undefined);
  }
}

/** Removes the directories this call made, newest first, each only if it is still the one made (and empty). */
async function removeDirectories(root: WorkspaceRoot, created: readonly MadeDirectory[]): Promise<void> {
  for (const directory of [...created].reverse()) {
    if (!directory.ours) continue;
    const stats = await root.operations.lstat(directory.absolute).catch(() => undefined);
    if (stats?.isDirectory() && sameIdentity(identityOf(stats), directory.identity)) {
      await root.operations.rmdir(directory.absolute).catch(() => undefined);
    }
  }
}
