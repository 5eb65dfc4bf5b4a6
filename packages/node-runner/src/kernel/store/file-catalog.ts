import { type FileHandle, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { JsonObject } from "@castellan/harness";
import { throwIfAborted } from "./abort.js";
import { byNewest, type SessionCatalog, type SessionSummary } from "./catalog.js";
import { isLockHeld, type LockOptions } from "./file-lock.js";
import { checkLineCrc } from "./log-line.js";
import { readLogPrefix } from "./log-reader.js";
import { describeInvalidRecord } from "./validate-record.js";

/** How much of a log's end `list` reads to find its last record's time. */
export const catalogTailBytes = 64 * 1024;
/** The longest first line `list` reads; a log whose first line is longer is left out. */
export const catalogMaxFirstLineBytes = 1024 * 1024;

const newline = 0x0a;

/** One complete line's `at`, when the line is a valid, crc-checked log line; else undefined. */
function lineTime(bytes: Buffer, start: number, end: number): { at: string; record: unknown } | undefined {
  const text = bytes.toString("utf8", start, end);
  if (checkLineCrc(bytes, start, end, text) !== undefined) return undefined;
  try {
    const entry = JSON.parse(text) as { at?: unknown; record?: unknown };
    return typeof entry.at === "string" ? { at: entry.at, record: entry.record } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads `[position, position + length)` of the file (less at its end). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** The summary of one log, from its first line and its last 64 KiB; undefined when its first line is not a session-open. */
async function summarize(
  path: string,
  sessionId: string,
  lockPath: string,
  lockOptions: LockOptions,
): Promise<SessionSummary | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const { size, mtime } = await handle.stat();
    // The first line, read in tail-sized steps until its newline.
    let head = Buffer.alloc(0);
    let firstEnd = -1;
    while (firstEnd === -1 && head.length < Math.min(size, catalogMaxFirstLineBytes)) {
      const more = await readAt(handle, head.length, Math.min(catalogTailBytes, size - head.length));
      if (more.length === 0) break;
      head = Buffer.concat([head, more]);
      firstEnd = head.indexOf(newline);
    }
    if (firstEnd === -1) return undefined;
    const first = lineTime(head, 0, firstEnd);
    if (!first || describeInvalidRecord(first.record) !== undefined) return undefined;
    const opening = first.record as { kind: string; sessionId: string; agentId: string; params: JsonObject };
    if (opening.kind !== "session-open" || opening.sessionId !== sessionId) return undefined;
    // The last valid complete line in the tail; the part before the tail's first newline may be cut.
    const tailStart = Math.max(firstEnd + 1, size - catalogTailBytes);
    const tail = await readAt(handle, tailStart, size - tailStart);
    let updatedAt: string | undefined;
    let end = tail.lastIndexOf(newline);
    while (end > 0 && updatedAt === undefined) {
      const previous = tail.lastIndexOf(newline, end - 1);
      if (previous === -1 && tailStart !== firstEnd + 1) break;
      updatedAt = lineTime(tail, previous + 1, end)?.at;
      end = previous;
    }
    // A last record longer than the tail: the file's own modification time says when it was written.
    if (updatedAt === undefined) updatedAt = tailStart === firstEnd + 1 ? first.at : mtime.toISOString();
    return {
      sessionId,
      agentId: opening.agentId,
      params: opening.params,
      createdAt: first.at,
      updatedAt,
      locked: await isLockHeld(lockPath, lockOptions),
    };
  } finally {
    await handle.close();
  }
}

/**
 * The catalog of a file store's folder. `list` reads each log's first line and its last
 * 64 KiB (never a whole file) and each lock file; a log whose first line is not a valid
 * `session-open` record of its own id is left out (opening it reports why). `read` checks
 * every line as `open` does and stops at the first torn or invalid one. Neither takes a lock
 * or writes.
 */
export function fileSessionCatalog(directory: string, lockOptions: LockOptions): SessionCatalog {
  return {
    async list(options) {
      throwIfAborted(options?.signal, "Listing sessions");
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      const summaries: SessionSummary[] = [];
      for (const name of names) {
        if (!name.endsWith(".jsonl")) continue;
        throwIfAborted(options?.signal, "Listing sessions");
        const encoded = name.slice(0, -".jsonl".length);
        let sessionId: string;
        try {
          sessionId = decodeURIComponent(encoded);
        } catch {
          continue;
        }
        // Only a name the store itself would write: another spelling of the same id is not its log.
        if (encodeURIComponent(sessionId) !== encoded) continue;
        const summary = await summarize(
          join(directory, name),
          sessionId,
          join(directory, `${encoded}.lock`),
          lockOptions,
        );
        if (summary) summaries.push(summary);
      }
      return summaries.sort(byNewest);
    },
    async read(sessionId, options) {
      throwIfAborted(options?.signal, `Reading session "${sessionId}"`);
      return await readLogPrefix(join(directory, `${encodeURIComponent(sessionId)}.jsonl`));
    },
  };
}
