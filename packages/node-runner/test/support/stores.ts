import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionRecord, SessionStore } from "../../src/index.js";

/** Wraps `inner` to die like a killed process at the first append `stopsAt` picks (numbered from 1): from it on nothing is saved or answered; `stopped` resolves once it released the Session. */
export function stoppingStore(
  inner: SessionStore,
  stopsAt: (records: readonly SessionRecord[], appendNumber: number) => boolean,
): { store: SessionStore; stopped: Promise<void> } {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let appends = 0;
  let dead = false;
  const store: SessionStore = {
    async open(sessionId, options) {
      const log = await inner.open(sessionId, options);
      return {
        sessionId: log.sessionId,
        records: log.records,
        async append(records) {
          appends++;
          if (!dead && !stopsAt(records, appends)) return await log.append(records);
          if (!dead) {
            dead = true;
            await log.close();
            stop();
          }
          return await new Promise<never>(() => undefined);
        },
        close: () => log.close(),
      };
    },
  };
  return { store, stopped };
}

/** The records a store holds for a Session (opens and closes its log). */
export async function storeRecords(store: SessionStore, sessionId: string): Promise<readonly SessionRecord[]> {
  const log = await store.open(sessionId);
  try {
    return log.records;
  } finally {
    await log.close();
  }
}

/** The records of a file store's log, read straight from the file (the test's own view of what was saved). */
export async function fileRecords(directory: string, sessionId: string): Promise<SessionRecord[]> {
  const text = await readFile(join(directory, `${encodeURIComponent(sessionId)}.jsonl`), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line).record as SessionRecord);
}
