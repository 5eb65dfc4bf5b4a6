import { mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionLockedError } from "../errors/errors.js";
import { writePrivateFileAtomically } from "../files/private-files.js";
import { acquireLock, type HeldLock } from "../store/file-lock.js";

/** What a store built on {@link sessionJsonFiles} says about its files. */
export interface SessionJsonFilesOptions {
  readonly directory: URL | string;
  /** The error for a Session another writer holds. */
  readonly locked: (sessionId: string, cause: SessionLockedError) => Error;
  /** The error for a file that is not JSON. */
  readonly corrupt: (file: string, cause: unknown) => Error;
}

/** One JSON file per Session in one directory, each with its writer lock, written atomically. */
export interface SessionJsonFiles {
  readonly directory: string;
  fileOf(sessionId: string): string;
  /** Takes the Session's writer lock on first use (made directory included); held until `close()`. */
  lock(sessionId: string): Promise<void>;
  /** The parsed file, or undefined when there is none. */
  read(sessionId: string): Promise<unknown>;
  write(sessionId: string, value: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * The file layer the task and Goal stores share: `<encodeURIComponent(sessionId)>.json` in
 * `directory` (made at the first lock), atomic writes, and one writer per Session across
 * processes through the Session store's lock files (a dead holder's lock is taken over).
 */
export function sessionJsonFiles(options: SessionJsonFilesOptions): SessionJsonFiles {
  const given = options.directory;
  const directory = resolve(given instanceof URL || given.startsWith("file:") ? fileURLToPath(given) : given);
  const locks = new Map<string, Promise<HeldLock>>();
  const fileOf = (sessionId: string) => join(directory, `${encodeURIComponent(sessionId)}.json`);
  return {
    directory,
    fileOf,
    async lock(sessionId) {
      let held = locks.get(sessionId);
      if (!held) {
        held = (async () => {
          await mkdir(directory, { recursive: true });
          try {
            return await acquireLock(sessionId, `${fileOf(sessionId)}.lock`, { unreadableLockStaleMs: 5_000 });
          } catch (error) {
            if (error instanceof SessionLockedError) throw options.locked(sessionId, error);
            throw error;
          }
        })();
        locks.set(sessionId, held);
        held.catch(() => locks.delete(sessionId));
      }
      await held;
    },
    async read(sessionId) {
      const file = fileOf(sessionId);
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw options.corrupt(file, error);
      }
    },
    write: (sessionId, value) => writePrivateFileAtomically(fileOf(sessionId), `${JSON.stringify(value, null, 2)}\n`),
    async close() {
      const held = [...locks.values()];
      locks.clear();
      for (const lease of held) await (await lease.catch(() => undefined))?.release();
    },
  };
}
