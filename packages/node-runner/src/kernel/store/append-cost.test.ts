// An append's work, counted: what each store validates, serializes, hashes, writes and syncs for
// one append, for a log of a few records and for one of thousands. None of it may depend on the
// log's length (the seq field's digits aside). Counting work, not timing it, keeps this
// deterministic; the timings live in bench/store-growth.ts.
import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileSessionStore } from "./file-store.js";
import { createMemorySessionStore } from "./memory-store.js";
import type { SessionRecord } from "./records.js";
import type { SessionLog, SessionStore } from "./types.js";

const counted = vi.hoisted(() => ({
  /** Records handed to checkAppend, and the log length each call was told. */
  checks: [] as { records: number; countBefore: number }[],
  /** Byte (or character) lengths handed to crc32. */
  hashed: [] as number[],
}));

vi.mock("./validate-record.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./validate-record.js")>();
  return {
    ...actual,
    checkAppend: (records: readonly unknown[], countBefore: number) => {
      counted.checks.push({ records: records.length, countBefore });
      return actual.checkAppend(records, countBefore);
    },
  };
});

// The log line takes zlib's crc32 through process.getBuiltinModule on first use: the count wraps it there.
const getBuiltinModule = process.getBuiltinModule.bind(process);
vi.spyOn(process, "getBuiltinModule").mockImplementation(((id: string) => {
  const module = getBuiltinModule(id);
  if (id !== "node:zlib") return module;
  const zlib = module as typeof import("node:zlib");
  return {
    ...zlib,
    crc32: (data: string | Uint8Array, value?: number) => {
      counted.hashed.push(typeof data === "string" ? Buffer.byteLength(data) : data.length);
      return zlib.crc32(data, value);
    },
  };
}) as typeof process.getBuiltinModule);

const runId = "run-1";
const opening = (sessionId: string): SessionRecord => ({
  kind: "session-open",
  formatVersion: 1,
  sessionId,
  agentId: "a",
  params: {},
});

/** One tool-call turn's records: the answer, the batch's start and the call's intent. */
function turn(n: number): SessionRecord[] {
  const toolCall = { id: `call_${n}`, name: "lookup", input: { n } };
  return [
    {
      kind: "assistant-message",
      runId,
      turn: n,
      message: { role: "assistant", content: [], toolCalls: [toolCall] },
      stopReason: "tool-calls",
      model: "m",
    },
    { kind: "tool-batch-start", runId, turn: n, toolCallIds: [toolCall.id] },
    { kind: "tool-start", runId, turn: n, toolCall },
  ];
}

/** A Run's records after the opening: its start, then `turns` turns. */
function history(turns: number): SessionRecord[] {
  const records: SessionRecord[] = [{ kind: "run-start", runId, input: [] }];
  for (let n = 1; n <= turns; n++) records.push(...turn(n));
  return records;
}

/** What one append did. */
interface Work {
  /** checkAppend calls, each with the records it was given and the log length it was told. */
  readonly checks: readonly { records: number; countBefore: number }[];
  /** JSON.stringify calls made by the append, and whether each serialized one record of the batch. */
  readonly stringified: number;
  readonly stringifiedBatchRecordsOnly: boolean;
  /** crc32 calls, and the bytes they hashed. */
  readonly hashes: number;
  readonly hashedBytes: number;
  /** The file store: write calls, bytes written, datasyncs, directory syncs. */
  readonly writes?: number;
  readonly bytes?: number;
  readonly datasyncs?: number;
  readonly directorySyncs?: number;
}

interface HandleCounts {
  writes: number;
  bytes: number;
  datasyncs: number;
  directorySyncs: number;
}

/** Counts FileHandle writes (and their bytes), datasyncs and syncs, for every handle. */
async function countHandles(directory: string): Promise<{ counts: HandleCounts; restore: () => void }> {
  const probe = await open(join(directory, "probe"), "w");
  const proto = Object.getPrototypeOf(probe) as {
    write: (buffer: Uint8Array, offset?: number, length?: number) => Promise<{ bytesWritten: number }>;
    datasync: () => Promise<void>;
    sync: () => Promise<void>;
  };
  await probe.close();
  const { write, datasync, sync } = proto;
  const counts: HandleCounts = { writes: 0, bytes: 0, datasyncs: 0, directorySyncs: 0 };
  proto.write = async function (this: unknown, buffer, offset, length) {
    counts.writes++;
    const result = await write.call(this, buffer, offset, length);
    counts.bytes += result.bytesWritten;
    return result;
  };
  proto.datasync = function (this: unknown) {
    counts.datasyncs++;
    return datasync.call(this);
  };
  proto.sync = function (this: unknown) {
    counts.directorySyncs++;
    return sync.call(this);
  };
  return {
    counts,
    restore: () => {
      proto.write = write;
      proto.datasync = datasync;
      proto.sync = sync;
    },
  };
}

/** Appends `batch` to `log` and counts the work; `handles` are the file store's counters, if any. */
async function measureAppend(log: SessionLog, batch: SessionRecord[], handles?: HandleCounts): Promise<Work> {
  counted.checks.length = 0;
  counted.hashed.length = 0;
  const before = handles ? { ...handles } : undefined;
  const stringify = vi.spyOn(JSON, "stringify");
  let durable: Promise<void>;
  let calls: unknown[][];
  try {
    // Validation and encoding happen inside the call: the spy sees only this append's.
    durable = log.append(batch);
  } finally {
    calls = [...stringify.mock.calls];
    stringify.mockRestore();
  }
  const serialized = calls.map(([value]) => (value as { record?: unknown }).record ?? value);
  await durable;
  const work: Work = {
    checks: [...counted.checks],
    stringified: calls.length,
    stringifiedBatchRecordsOnly: serialized.every((value) => batch.includes(value as SessionRecord)),
    hashes: counted.hashed.length,
    hashedBytes: counted.hashed.reduce((sum, bytes) => sum + bytes, 0),
  };
  if (!handles || !before) return work;
  return {
    ...work,
    writes: handles.writes - before.writes,
    bytes: handles.bytes - before.bytes,
    datasyncs: handles.datasyncs - before.datasyncs,
    directorySyncs: handles.directorySyncs - before.directorySyncs,
  };
}

/** A Session of `store` whose saved history is the opening and `length - 1` more records, reopened. */
async function reopenedWith(store: SessionStore, sessionId: string, length: number): Promise<SessionLog> {
  const writer = await store.open(sessionId);
  await writer.append([opening(sessionId), ...history(Math.ceil(length / 3)).slice(0, length - 1)]);
  await writer.close();
  const log = await store.open(sessionId);
  opened.push(log);
  expect(log.records).toHaveLength(length);
  return log;
}

/** The count of decimal digits of `seq`, the one part of a line whose size grows with the log. */
const digits = (seq: number) => String(seq).length;

const shortLength = 4;
const longLength = 6001;

let root: string;
let restore: (() => void) | undefined;
/** Logs a test opened, closed after it. */
const opened: SessionLog[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-append-cost-"));
});

afterEach(async () => {
  restore?.();
  restore = undefined;
  for (const log of opened.splice(0)) await log.close();
  await rm(root, { recursive: true, force: true });
});

describe("an append's work", () => {
  it("in the file store, covers the new records only: one check of the batch, one serialization and one crc per record, one write of the new lines, one datasync", async () => {
    const store = createFileSessionStore({ directory: root });
    const short = await reopenedWith(store, "short", shortLength);
    const long = await reopenedWith(store, "long", longLength);
    const handles = await countHandles(root);
    restore = handles.restore;
    const batch = turn(9);
    const works: Record<"short" | "long", Work[]> = { short: [], long: [] };
    for (const [name, log, length] of [
      ["short", short, shortLength],
      ["long", long, longLength],
    ] as const) {
      for (let index = 0; index < 3; index++) works[name].push(await measureAppend(log, batch, handles.counts));
      // The records found at open are what the log holds: appends do not copy into them.
      expect(log.records).toHaveLength(length);
    }
    restore();
    restore = undefined;

    for (const [name, length] of [
      ["short", shortLength],
      ["long", longLength],
    ] as const) {
      const text = await readFile(join(root, `${name}.jsonl`), "utf8");
      const lines = text.split("\n").slice(0, -1);
      expect(lines).toHaveLength(length + 3 * batch.length);
      works[name].forEach((work, index) => {
        const countBefore = length + index * batch.length;
        expect(work.checks).toEqual([{ records: batch.length, countBefore }]);
        expect(work.stringified).toBe(batch.length);
        expect(work.stringifiedBatchRecordsOnly).toBe(true);
        expect(work.hashes).toBe(batch.length);
        expect(work.writes).toBe(1);
        expect(work.datasyncs).toBe(1);
        expect(work.directorySyncs).toBe(0);
        // The bytes written are exactly the new lines, and the crcs hashed less than that.
        const added = lines.slice(countBefore, countBefore + batch.length);
        expect(work.bytes).toBe(added.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0));
        expect(work.hashedBytes).toBeLessThan(work.bytes as number);
      });
    }
    // Long against short: the same work, but for the seq field's extra digits in each new line.
    works.long.forEach((long, index) => {
      const short = works.short[index] as Work;
      let extraDigits = 0;
      for (let offset = 1; offset <= batch.length; offset++) {
        const seq = (length: number) => length + index * batch.length + offset;
        extraDigits += digits(seq(longLength)) - digits(seq(shortLength));
      }
      expect((long.bytes as number) - (short.bytes as number)).toBe(extraDigits);
      expect(long.hashedBytes - short.hashedBytes).toBe(extraDigits);
      expect({ ...long, checks: undefined, bytes: undefined, hashedBytes: undefined }).toEqual({
        ...short,
        checks: undefined,
        bytes: undefined,
        hashedBytes: undefined,
      });
    });
  });

  it("in the memory store, covers the new records only: one check of the batch, one serialization per record", async () => {
    const store = createMemorySessionStore();
    const short = await reopenedWith(store, "short", shortLength);
    const long = await reopenedWith(store, "long", longLength);
    const batch = turn(9);
    for (const [log, length] of [
      [short, shortLength],
      [long, longLength],
    ] as const) {
      for (let index = 0; index < 3; index++) {
        const work = await measureAppend(log, batch);
        expect(work.checks).toEqual([{ records: batch.length, countBefore: length + index * batch.length }]);
        expect(work.stringified).toBe(batch.length);
        expect(work.stringifiedBatchRecordsOnly).toBe(true);
        expect(work.hashes).toBe(0);
      }
      expect(log.records).toHaveLength(length);
    }
  });
});
