import { type FileHandle, open } from "node:fs/promises";
import { dirname } from "node:path";
import { SessionLogError } from "../errors/errors.js";
import type { HeldLock } from "./file-lock.js";
import { encodeLogLine } from "./log-line.js";
import type { LogContents } from "./log-reader.js";
import type { SessionRecord } from "./records.js";
import type { AppendOptions, SessionLog } from "./types.js";
import { checkAppend } from "./validate-record.js";

type LogErrorCode = ConstructorParameters<typeof SessionLogError>[0];

/** How long an append that may share its sync waits for a later append before syncing alone. */
const shareSyncWindowMs = 5;

/** A sync owed to appends that wait to share one. */
interface OwedSync {
  readonly promise: Promise<void>;
  readonly timer: ReturnType<typeof setTimeout>;
  settle(sync: Promise<void>): void;
}

/**
 * An open session log file. Appends are written in call order, each as one write of all its
 * lines, as soon as the write before it is done; syncs are shared (group commit): an append
 * resolves once a datasync that started after its write has finished, and writes made while
 * a sync runs are covered together by the next one. So a caller that does not wait for one
 * append before making the next pays for one sync, not two. The next `seq` lives in memory,
 * so an append costs the same however long the history is.
 */
class FileSessionLog implements SessionLog {
  readonly sessionId: string;
  readonly records: readonly SessionRecord[];
  readonly #path: string;
  readonly #lock: HeldLock;
  #handle: FileHandle | undefined;
  /** Bytes of a torn trailing record still to cut before the first write, and where to cut. */
  #tornLength: number;
  readonly #validLength: number;
  readonly #fileExisted: boolean;
  /** Records accepted by `append` so far (written or queued), including those found at open. */
  #accepted: number;
  /** The writes, in order (never rejects: each caller sees its own outcome). */
  #queue: Promise<void> = Promise.resolve();
  /** The sync running now, if any. */
  #syncing: Promise<void> | undefined;
  /** The sync that starts when the running one ends, covering the writes made meanwhile. */
  #nextSync: Promise<void> | undefined;
  /** The sync owed to appends written with `shareSync`, until one starts or the window ends. */
  #owed: OwedSync | undefined;
  /** When the latest non-empty append is durable (never rejects). */
  #durable: Promise<void> = Promise.resolve();
  #failure: SessionLogError | undefined;
  #closing: Promise<void> | undefined;

  constructor(sessionId: string, path: string, contents: LogContents, lock: HeldLock) {
    this.sessionId = sessionId;
    this.records = Object.freeze(contents.records);
    this.#path = path;
    this.#lock = lock;
    this.#tornLength = contents.tornLength;
    this.#validLength = contents.validLength;
    this.#fileExisted = contents.exists;
    this.#accepted = contents.records.length;
  }

  append(records: readonly SessionRecord[], options?: AppendOptions): Promise<void> {
    if (this.#closing !== undefined) {
      return Promise.reject(this.#error("session_log_write_failed", "the log is closed; nothing was appended"));
    }
    if (this.#failure !== undefined) return Promise.reject(this.#poisoned());
    const problem = checkAppend(records, this.#accepted);
    if (problem !== undefined) {
      const error = this.#error(
        problem.code,
        `record ${problem.index + 1} cannot be written: ${problem.problem}; nothing was appended`,
        problem.index + 1,
      );
      return Promise.reject(error);
    }
    // Encoding now, not when the write's turn comes, snapshots the records: a caller that
    // mutates them after `append` returns cannot change what is written.
    const at = new Date().toISOString();
    let text = "";
    try {
      for (let offset = 0; offset < records.length; offset++) {
        text += encodeLogLine(this.#accepted + offset + 1, at, records[offset] as SessionRecord);
      }
    } catch (cause) {
      return Promise.reject(
        new SessionLogError("session_log_corrupt", `A record for ${this.#path} is not JSON; nothing was appended.`, {
          path: this.#path,
          cause,
        }),
      );
    }
    this.#accepted += records.length;
    // Nothing to write: durable once everything appended before it is.
    if (text === "") return this.#durable.then(() => (this.#failure ? Promise.reject(this.#poisoned()) : undefined));
    const written = this.#queue.then(() => this.#write(Buffer.from(text)));
    // The queue only orders writes; each caller sees its own outcome through `durable`.
    this.#queue = written.catch(() => {});
    const durable = written.then(() => (options?.shareSync ? this.#syncShared() : this.#syncCovering()));
    this.#durable = durable.catch(() => {});
    return durable;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      // Let appends already accepted finish (or fail) before the handle goes away.
      await this.#queue;
      await this.#durable;
      try {
        await this.#handle?.close();
      } finally {
        this.#handle = undefined;
        await this.#lock.release();
      }
    })();
    return this.#closing;
  }

  async #write(bytes: Buffer): Promise<void> {
    if (this.#failure !== undefined) throw this.#poisoned();
    try {
      const handle = await this.#openHandle();
      let offset = 0;
      // One write call; the loop only continues after a short write, which the OS may do.
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
    } catch (cause) {
      throw this.#fail(cause);
    }
  }

  /** A sync within the window, or the one a later append starts sooner: it covers this write too. */
  #syncShared(): Promise<void> {
    if (this.#owed !== undefined) return this.#owed.promise;
    let settle!: (sync: Promise<void>) => void;
    const promise = new Promise<void>((resolve, reject) => {
      settle = (sync) => sync.then(resolve, reject);
    });
    const timer = setTimeout(() => {
      if (this.#owed?.timer === timer) this.#syncCovering();
    }, shareSyncWindowMs);
    this.#owed = { promise, timer, settle };
    return promise;
  }

  /**
   * A sync that starts after every write done so far: the running one's successor, or a new
   * one. It settles the sync owed to earlier appends waiting to share one.
   */
  #syncCovering(): Promise<void> {
    const owed = this.#owed;
    this.#owed = undefined;
    if (owed !== undefined) clearTimeout(owed.timer);
    const sync = this.#nextOrNewSync();
    if (owed === undefined) return sync;
    // One promise for both, so the earlier appends resolve first, as appends do.
    owed.settle(sync);
    return owed.promise;
  }

  #nextOrNewSync(): Promise<void> {
    if (this.#nextSync !== undefined) return this.#nextSync;
    if (this.#syncing === undefined) return this.#startSync();
    // The running sync may have started before this write: wait for the one after it.
    const next = this.#syncing
      .catch(() => {})
      .then(() => {
        this.#nextSync = undefined;
        return this.#startSync();
      });
    this.#nextSync = next;
    return next;
  }

  #startSync(): Promise<void> {
    const sync = (async () => {
      if (this.#failure !== undefined) throw this.#poisoned();
      try {
        await (this.#handle as FileHandle).datasync();
      } catch (cause) {
        throw this.#fail(cause);
      }
    })();
    this.#syncing = sync;
    const clear = () => {
      if (this.#syncing === sync) this.#syncing = undefined;
    };
    sync.then(clear, clear);
    return sync;
  }

  /** Records the first write or sync failure; the log refuses appends from then on. */
  #fail(cause: unknown): SessionLogError {
    this.#failure ??= this.#error(
      "session_log_write_failed",
      "an append could not be written and synced; the log refuses further appends",
      undefined,
      cause,
    );
    return this.#failure;
  }

  async #openHandle(): Promise<FileHandle> {
    if (this.#handle !== undefined) return this.#handle;
    // Opened at the first append, not at open: an open that is then given up leaves the disk
    // untouched (no new empty file, no cut tail).
    // A Session's history is private to its owner: a new log is 0600 (the umask can only narrow it).
    const handle = await open(this.#path, "a", 0o600);
    try {
      if (this.#tornLength > 0) {
        // A crash mid-append left these bytes; they were never acknowledged. Appending mode
        // still writes at the (new) end after this.
        await handle.truncate(this.#validLength);
        this.#tornLength = 0;
      }
      if (!this.#fileExisted) await syncDirectory(dirname(this.#path));
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
    this.#handle = handle;
    return handle;
  }

  #poisoned(): SessionLogError {
    return this.#error(
      "session_log_write_failed",
      "an earlier append failed, so the log refuses appends; reopen the Session",
      undefined,
      this.#failure,
    );
  }

  #error(code: LogErrorCode, problem: string, line?: number, cause?: unknown): SessionLogError {
    const message = `Session "${this.sessionId}" (${this.#path}): ${problem}.`;
    return new SessionLogError(code, message, { path: this.#path, line, cause });
  }
}

/** Makes a new file's directory entry durable too, so a synced first append survives a crash. */
async function syncDirectory(path: string): Promise<void> {
  // Windows cannot open a directory for syncing, and NTFS does not need it.
  if (process.platform === "win32") return;
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A SessionLog over the file at `path`, whose history was read as `contents`, holding `lock`. */
export function openFileSessionLog(sessionId: string, path: string, contents: LogContents, lock: HeldLock): SessionLog {
  return new FileSessionLog(sessionId, path, contents, lock);
}
