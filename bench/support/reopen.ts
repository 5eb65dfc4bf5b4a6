// Reopening a saved Session against reading its log file raw.
import { readFile } from "node:fs/promises";
import type { Agent } from "@castellan/harness";
import { openSession, type SessionStore } from "@castellan/node-runner";
import { median } from "./stats.ts";

export interface ReopenTimings {
  /** Records in the log (lines parsed by the raw read). */
  readonly records: number;
  readonly bytes: number;
  readonly repeats: number;
  /** Median ms of `openSession` on the saved id (its close is not timed). */
  readonly openMs: number;
  /** Median ms of `store.open` alone (lock, read, crc and shape checks; no history fold or Program). */
  readonly storeOpenMs: number;
  /** Median ms of readFile + split lines + JSON.parse of each line. */
  readonly rawMs: number;
  /** openMs / rawMs. */
  readonly ratio: number;
}

/** The floor of reading the log: the bytes, split into lines, each parsed. Returns the line count. */
export async function readLogRaw(path: string): Promise<{ readonly records: number; readonly bytes: number }> {
  const text = await readFile(path, "utf8");
  let records = 0;
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    JSON.parse(line);
    records++;
  }
  return { records, bytes: Buffer.byteLength(text) };
}

async function timed<T>(work: () => Promise<T>): Promise<{ readonly ms: number; readonly value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

/**
 * Times, `repeats` times each (after one untimed round), reopening Session `sessionId` of
 * `store` with `openSession`, the store's `open` alone, and the raw read of `logPath`. The
 * three alternate within each round so drift on a shared machine hits them alike.
 */
export async function measureReopen(options: {
  readonly agent: Agent;
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly logPath: string;
  readonly repeats: number;
}): Promise<ReopenTimings> {
  const { agent, store, sessionId, logPath, repeats } = options;
  const open: number[] = [];
  const storeOpen: number[] = [];
  const raw: number[] = [];
  let records = 0;
  let bytes = 0;
  for (let round = 0; round <= repeats; round++) {
    const session = await timed(() => openSession({ agent, store, id: sessionId, permissions: "full-access" }));
    await session.value.close();
    const log = await timed(() => store.open(sessionId));
    const saved = log.value.records.length;
    await log.value.close();
    const read = await timed(() => readLogRaw(logPath));
    ({ records, bytes } = read.value);
    if (saved !== records) throw new Error(`store.open found ${saved} records, the raw read ${records}.`);
    if (round === 0) continue;
    open.push(session.ms);
    storeOpen.push(log.ms);
    raw.push(read.ms);
  }
  const openMs = median(open);
  const rawMs = median(raw);
  return { records, bytes, repeats, openMs, storeOpenMs: median(storeOpen), rawMs, ratio: openMs / rawMs };
}
