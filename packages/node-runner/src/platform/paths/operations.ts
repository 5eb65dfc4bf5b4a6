import * as fs from "node:fs/promises";

/** What this layer reads from a `stat`/`lstat`; `node:fs` `Stats` satisfies it. */
export interface WorkspaceStats {
  /** Device of the file system holding it; with `ino`, its identity. */
  readonly dev: number;
  /** Inode number; with `dev`, the file's identity. */
  readonly ino: number;
  /** Type and permission bits, as in `stat(2)`. */
  readonly mode: number;
  /** Size in bytes. */
  readonly size: number;
  /** Last change of content or metadata, in milliseconds since the epoch. */
  readonly ctimeMs: number;
  /** Number of names (hard links) the file has; absent is taken as 1. */
  readonly nlink?: number;
  /** A regular file. */
  isFile(): boolean;
  isDirectory(): boolean;
  /** Only an `lstat` (or the entry itself) can be a link. */
  isSymbolicLink(): boolean;
}

/** A directory entry as `readdir` reports it (the type is not followed through links); `node:fs` `Dirent` satisfies it. */
export interface WorkspaceDirent {
  /** The entry's name, decoded as UTF-8. */
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** An open file; `node:fs/promises` `FileHandle` satisfies it. */
export interface WorkspaceFileHandle {
  /** Reads up to `length` bytes into `buffer` at `offset`, from file position `position`; 0 at end of file. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  /** Writes up to `length` bytes of `buffer` from `offset` at file position `position`. */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  /** `fstat(2)` of the open file. */
  stat(): Promise<WorkspaceStats>;
  /** `fchmod(2)` of the open file. */
  chmod(mode: number): Promise<void>;
  /** Releases the file descriptor. */
  close(): Promise<void>;
}

/**
 * Every file-system call the workspace path layer makes after a root is bound, so the same
 * code runs on the local disk, a fake, or a wrapper that logs each path. Paths passed are
 * absolute. Implementations must not follow a symbolic link where the `node:fs` call does
 * not (`lstat`, `readlink`, `readdir`, `unlink`, `rename`), and must pass `open`'s flags
 * through unchanged: the layer's safety rests on `O_NOFOLLOW`, `O_NONBLOCK` and `O_EXCL`.
 * Errors are expected to carry Node's `code` (`ENOENT`, `ELOOP`, ...).
 */
export interface WorkspaceOperations {
  /** `lstat(2)`: a link is described, not followed. */
  lstat(path: string): Promise<WorkspaceStats>;
  /** The canonical absolute path, every link resolved (`realpath(3)`). */
  realpath(path: string): Promise<string>;
  /** A symbolic link's target text. */
  readlink(path: string): Promise<string>;
  /** A directory's entries, without `.` and `..`, in no particular order. */
  readdir(path: string): Promise<WorkspaceDirent[]>;
  /** `open(2)` with numeric flags (`node:fs` `constants`) and the mode for a created file. */
  open(path: string, flags: number, mode?: number): Promise<WorkspaceFileHandle>;
  /** Creates one directory (not its parents); fails with `EEXIST` when something is there. */
  mkdir(path: string): Promise<void>;
  /** Removes one empty directory. */
  rmdir(path: string): Promise<void>;
  /** `rename(2)`: replaces `to` atomically. */
  rename(from: string, to: string): Promise<void>;
  /** Removes one name (a file's or a link's, never a directory's). */
  unlink(path: string): Promise<void>;
}

/** The default {@link WorkspaceOperations}: the local file system through `node:fs/promises`. */
export const nodeWorkspaceOperations: WorkspaceOperations = Object.freeze({
  lstat: (path: string) => fs.lstat(path),
  realpath: (path: string) => fs.realpath(path),
  readlink: (path: string) => fs.readlink(path),
  readdir: (path: string) => fs.readdir(path, { withFileTypes: true }),
  open: (path: string, flags: number, mode?: number) => fs.open(path, flags, mode),
  mkdir: async (path: string) => {
    await fs.mkdir(path);
  },
  rmdir: (path: string) => fs.rmdir(path),
  rename: (from: string, to: string) => fs.rename(from, to),
  unlink: (path: string) => fs.unlink(path),
});
