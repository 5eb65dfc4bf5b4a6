import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { throwIfAborted } from "./abort.js";
import type { SessionCatalog } from "./catalog.js";
import { fileSessionCatalog } from "./file-catalog.js";
import { acquireLock } from "./file-lock.js";
import { openFileSessionLog } from "./file-log.js";
import { readLogFile } from "./log-reader.js";
import type { SessionLog, SessionStore } from "./types.js";

/** Where and how a file store keeps Sessions. */
export interface FileSessionStoreOptions {
  /**
   * The folder of the logs, as a `file:` URL or a path (a relative path is resolved against
   * the current directory when the store is created). Created, with its parents, at the first
   * open if missing.
   */
  readonly directory: URL | string;
  /**
   * How old, in milliseconds, a lock file whose content is not a readable lock must be before
   * it counts as stale and is taken over (its writer died between creating and filling it).
   * Default 5000. A younger one reports the Session locked, since a writer may be filling it.
   */
  readonly unreadableLockStaleMs?: number;
}

/** Default of {@link FileSessionStoreOptions.unreadableLockStaleMs}. */
const defaultUnreadableLockStaleMs = 5000;

/**
 * A SessionStore that keeps each Session as files in one folder, named by the
 * `encodeURIComponent` of its id:
 *
 * - `<id>.jsonl`, the log: one `{"seq","at","record","crc"}` JSON object per line, `seq`
 *   counting from 1, `crc` the CRC-32 of the line without its crc field. Appends are written
 *   and synced before they resolve; nothing already written is ever rewritten.
 * - `<id>.lock`, present while a writer holds the Session: `{"pid","host","at","started"}`.
 *   A lock left by a dead process on this host is taken over.
 *
 * `open` rejects with SessionLockedError ("session_locked") when another writer holds the
 * Session, and with SessionLogError ("session_log_corrupt" or "session_log_unsupported", with
 * the path and line) when the history is invalid; either way nothing on disk changes and no
 * lock is kept. A torn trailing line (a crash mid-append) is left out of `records` and cut at
 * the first append. An already aborted `signal` rejects with a CastellanError coded "aborted".
 *
 * It is also a {@link SessionCatalog}: `list` and `read` show what the folder holds without
 * taking a lock or writing (file-catalog.ts).
 */
export function createFileSessionStore(options: FileSessionStoreOptions): SessionStore & SessionCatalog {
  const directory =
    typeof options.directory === "string" ? resolve(options.directory) : fileURLToPath(options.directory);
  const lockOptions = { unreadableLockStaleMs: options.unreadableLockStaleMs ?? defaultUnreadableLockStaleMs };
  return {
    ...fileSessionCatalog(directory, lockOptions),
    async open(sessionId: string, openOptions?: { readonly signal?: AbortSignal }): Promise<SessionLog> {
      const signal = openOptions?.signal;
      throwIfAborted(signal, `Opening session "${sessionId}"`);
      const name = encodeURIComponent(sessionId);
      const logPath = join(directory, `${name}.jsonl`);
      await mkdir(directory, { recursive: true });
      const lock = await acquireLock(sessionId, join(directory, `${name}.lock`), lockOptions);
      try {
        const contents = await readLogFile(logPath);
        // Aborted while reading: give the lock back rather than hand out a log nobody wants.
        throwIfAborted(signal, `Opening session "${sessionId}"`);
        return openFileSessionLog(sessionId, logPath, contents, lock);
      } catch (error) {
        await lock.release();
        throw error;
      }
    },
  };
}
