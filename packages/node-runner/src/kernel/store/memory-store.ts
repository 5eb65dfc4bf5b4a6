import { SessionLockedError, SessionLogError } from "../errors/errors.js";
import { throwIfAborted } from "./abort.js";
import { byNewest, type SessionCatalog, type SessionSummary } from "./catalog.js";
import type { SessionOpenRecord, SessionRecord } from "./records.js";
import type { AppendOptions, SessionLog, SessionStore } from "./types.js";
import { checkAppend } from "./validate-record.js";

interface SavedSession {
  /** Each record as JSON: what a file would hold, so every open gets its own fresh copies. */
  readonly records: string[];
  /** When each record was saved (ISO 8601), as a file log's `at`. */
  readonly times: string[];
  writer: MemorySessionLog | undefined;
}

class MemorySessionLog implements SessionLog {
  readonly sessionId: string;
  readonly records: readonly SessionRecord[];
  readonly #saved: SavedSession;
  #closed = false;

  constructor(sessionId: string, saved: SavedSession) {
    this.sessionId = sessionId;
    this.#saved = saved;
    this.records = Object.freeze(saved.records.map((text) => JSON.parse(text) as SessionRecord));
  }

  /** Saved at once, so there is no sync to share: AppendOptions change nothing here. */
  async append(records: readonly SessionRecord[], _options?: AppendOptions): Promise<void> {
    if (this.#closed) throw this.#error("session_log_write_failed", "the log is closed; nothing was appended");
    const problem = checkAppend(records, this.#saved.records.length);
    if (problem !== undefined) {
      throw this.#error(
        problem.code,
        `record ${problem.index + 1} cannot be written: ${problem.problem}; nothing was appended`,
        problem.index + 1,
      );
    }
    // Serializing copies the records (later mutation by the caller cannot reach history) and
    // gives them the file store's semantics (undefined properties dropped, BigInt refused).
    let texts: string[];
    try {
      texts = records.map((record) => JSON.stringify(record));
    } catch (cause) {
      throw this.#error("session_log_corrupt", "a record is not JSON; nothing was appended", undefined, cause);
    }
    // Saved synchronously, in call order; the await of the caller comes after.
    this.#saved.records.push(...texts);
    const at = new Date().toISOString();
    this.#saved.times.push(...texts.map(() => at));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#saved.writer === this) this.#saved.writer = undefined;
  }

  #error(code: ConstructorParameters<typeof SessionLogError>[0], problem: string, line?: number, cause?: unknown) {
    return new SessionLogError(code, `Session "${this.sessionId}" (in memory): ${problem}.`, { line, cause });
  }
}

/**
 * A SessionStore that keeps Sessions in this object's memory, for tests and benchmarks. It
 * follows the file store's contract: one writer per Session at a time (a second `open`
 * rejects with SessionLockedError until the first closes), the same record checks on
 * `append`, records copied on the way in and out, append after close rejected. Histories live
 * as long as the store object; there is no size bound. It is also a {@link SessionCatalog}
 * of the Sessions that have a record.
 */
export function createMemorySessionStore(): SessionStore & SessionCatalog {
  const sessions = new Map<string, SavedSession>();
  return {
    async list(options) {
      throwIfAborted(options?.signal, "Listing sessions");
      const summaries: SessionSummary[] = [];
      for (const [sessionId, saved] of sessions) {
        const [first] = saved.records;
        if (first === undefined) continue;
        const opening = JSON.parse(first) as SessionOpenRecord;
        summaries.push({
          sessionId,
          agentId: opening.agentId,
          params: opening.params,
          createdAt: saved.times[0] as string,
          updatedAt: saved.times[saved.times.length - 1] as string,
          locked: saved.writer !== undefined,
        });
      }
      return summaries.sort(byNewest);
    },
    async read(sessionId, options) {
      throwIfAborted(options?.signal, `Reading session "${sessionId}"`);
      return (sessions.get(sessionId)?.records ?? []).map((text) => JSON.parse(text) as SessionRecord);
    },
    async open(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<SessionLog> {
      throwIfAborted(options?.signal, `Opening session "${sessionId}"`);
      let saved = sessions.get(sessionId);
      if (saved === undefined) {
        saved = { records: [], times: [], writer: undefined };
        sessions.set(sessionId, saved);
      }
      if (saved.writer !== undefined) {
        throw new SessionLockedError(`Session "${sessionId}" is locked: another writer in this process holds it open.`);
      }
      const log = new MemorySessionLog(sessionId, saved);
      saved.writer = log;
      return log;
    },
  };
}
