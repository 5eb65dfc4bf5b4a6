import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileSessionStore } from "./file-store.js";
import type { SessionRecord } from "./records.js";

const opening: SessionRecord = {
  kind: "session-open",
  formatVersion: 1,
  sessionId: "s1",
  agentId: "helper",
  params: { repo: "castellan", depth: 2, flags: [true, null] },
};

/** One record of every kind, with the optional fields present. */
const everyKind: readonly SessionRecord[] = [
  opening,
  { kind: "run-start", runId: "run-1", input: [{ type: "text", text: "Hello, wörld ✓" }] },
  {
    kind: "assistant-message",
    runId: "run-1",
    turn: 1,
    message: {
      role: "assistant",
      content: [
        { type: "text", text: "Reading it." },
        { type: "provider", provider: "anthropic", data: { signature: "abc", nested: [1, 2] } },
        { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      ],
      toolCalls: [{ id: "call-1", name: "read", input: { path: "README.md" } }],
    },
    stopReason: "tool-calls",
    model: "anthropic:claude",
    usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1, costUsd: 0.001 },
  },
  {
    kind: "tool-start",
    runId: "run-1",
    turn: 1,
    toolCall: { id: "call-1", name: "read", input: { path: "README.md" } },
  },
  {
    kind: "tool-end",
    runId: "run-1",
    turn: 1,
    toolCallId: "call-1",
    toolName: "read",
    input: { path: "README.md" },
    result: { content: [{ type: "text", text: "# Castellan\n" }], isError: false },
  },
  { kind: "run-end", runId: "run-1", status: "completed" },
  { kind: "run-end", runId: "run-2", status: "failed", error: { code: "model_failed", message: "It broke." } },
];

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-file-store-"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function logLines(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text.slice(0, -1).split("\n");
}

describe("createFileSessionStore", () => {
  it("round-trips every record kind through a reopen", async () => {
    const store = createFileSessionStore({ directory: root });
    const log = await store.open("s1");
    expect(log.sessionId).toBe("s1");
    expect(log.records).toEqual([]);
    await log.append(everyKind.slice(0, 3));
    await log.append(everyKind.slice(3));
    await log.close();

    const reopened = await createFileSessionStore({ directory: pathToFileURL(root) }).open("s1");
    expect(reopened.records).toEqual(everyKind);
    await reopened.close();
  });

  it("writes the documented line format: contiguous seq, ISO time, crc of the line without it", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    await log.append(everyKind);
    await log.close();

    const lines = await logLines(join(root, "s1.jsonl"));
    expect(lines).toHaveLength(everyKind.length);
    lines.forEach((line, index) => {
      const entry = JSON.parse(line) as { seq: number; at: string; record: unknown; crc: string };
      expect(Object.keys(entry)).toEqual(["seq", "at", "record", "crc"]);
      expect(entry.seq).toBe(index + 1);
      expect(new Date(entry.at).toISOString()).toBe(entry.at);
      expect(entry.record).toEqual(everyKind[index]);
      const covered = line.replace(/,"crc":"[0-9a-f]{8}"\}$/, "}");
      expect(entry.crc).toBe(crc32(covered).toString(16).padStart(8, "0"));
    });
  });

  it("makes an append readable by a fresh readFile once it resolves", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    await log.append([opening]);
    expect(await logLines(join(root, "s1.jsonl"))).toHaveLength(1);
    await log.append(everyKind.slice(1, 2));
    const lines = await logLines(join(root, "s1.jsonl"));
    expect(JSON.parse(lines[1] ?? "").record).toEqual(everyKind[1]);
    await log.close();
  });

  it("writes and resolves concurrent appends in call order", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    const settled: number[] = [];
    const appends = [log.append([opening])];
    for (let index = 0; index < 25; index++) {
      const batch: SessionRecord[] = [{ kind: "run-start", runId: `run-${index}`, input: [] }];
      if (index % 3 === 0) batch.push({ kind: "run-end", runId: `run-${index}`, status: "completed" });
      appends.push(log.append(batch).then(() => void settled.push(index)));
    }
    await Promise.all(appends);
    await log.close();

    expect(settled).toEqual([...settled].sort((left, right) => left - right));
    const reopened = await createFileSessionStore({ directory: root }).open("s1");
    const starts = reopened.records.filter((record) => record.kind === "run-start").map((record) => record.runId);
    expect(starts).toEqual(Array.from({ length: 25 }, (_, index) => `run-${index}`));
    expect(reopened.records).toHaveLength(1 + 25 + 9);
    await reopened.close();
  });

  it("snapshots records at append: mutating them afterwards changes nothing", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    const params: Record<string, string> = { mode: "first" };
    const pending = log.append([{ ...opening, params }]);
    params.mode = "changed";
    await pending;
    await log.close();
    const reopened = await createFileSessionStore({ directory: root }).open("s1");
    expect(reopened.records[0]).toMatchObject({ params: { mode: "first" } });
    await reopened.close();
  });

  it("refuses a record that would make the log invalid, writes nothing and stays usable", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    await expect(log.append([everyKind[1] as SessionRecord])).rejects.toMatchObject({
      code: "session_log_corrupt",
      line: 1,
    });
    await expect(log.append([{ ...opening, formatVersion: 99 }])).rejects.toMatchObject({
      code: "session_log_unsupported",
    });
    await log.append([opening]);
    const malformed = { kind: "run-start", input: [] } as unknown as SessionRecord;
    await expect(log.append([everyKind[1] as SessionRecord, malformed])).rejects.toMatchObject({
      code: "session_log_corrupt",
      line: 3,
    });
    await expect(log.append([opening])).rejects.toMatchObject({ code: "session_log_corrupt", line: 2 });
    await log.append(everyKind.slice(1));
    await log.close();
    expect(await logLines(join(root, "s1.jsonl"))).toHaveLength(everyKind.length);
  });

  it("rejects appends after close; close is idempotent and removes the lock", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    await log.append([opening]);
    expect(await readdir(root)).toContain("s1.lock");
    await Promise.all([log.close(), log.close()]);
    await log.close();
    expect(await readdir(root)).toEqual(["s1.jsonl"]);
    await expect(log.append(everyKind.slice(1, 2))).rejects.toMatchObject({ code: "session_log_write_failed" });
  });

  it("lets appends accepted before close finish", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    const written = log.append(everyKind);
    await log.close();
    await written;
    expect(await logLines(join(root, "s1.jsonl"))).toHaveLength(everyKind.length);
  });

  it("fails a write with session_log_write_failed and refuses later appends", async () => {
    const log = await createFileSessionStore({ directory: root }).open("s1");
    // A folder where the log file should be makes opening it for appending fail.
    await mkdir(join(root, "s1.jsonl"));
    const failed = await log.append([opening]).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: "session_log_write_failed", path: join(root, "s1.jsonl") });
    // The cause is the file system's own refusal to open a folder for appending.
    expect((failed as Error).cause).toMatchObject({ code: "EISDIR", syscall: "open", path: join(root, "s1.jsonl") });
    await rm(join(root, "s1.jsonl"), { recursive: true });
    await expect(log.append([opening])).rejects.toMatchObject({ code: "session_log_write_failed" });
    await log.close();
    expect(await readdir(root)).toEqual([]);
  });

  it("creates its folder on open, names files by the encoded id, and leaves no log for an unused open", async () => {
    const directory = join(root, "nested", "logs");
    const store = createFileSessionStore({ directory });
    const log = await store.open("team/a b?");
    expect(await readdir(directory)).toEqual(["team%2Fa%20b%3F.lock"]);
    await log.close();
    expect(await readdir(directory)).toEqual([]);

    const used = await store.open("team/a b?");
    await used.append([opening]);
    await used.close();
    expect(await readdir(directory)).toEqual(["team%2Fa%20b%3F.jsonl"]);
  });

  it("rejects an open whose signal is already aborted, before touching the disk", async () => {
    const directory = join(root, "logs");
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    const error = await createFileSessionStore({ directory })
      .open("s1", { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "aborted", name: "AbortError" });
    expect((error as Error).cause).toEqual(new Error("stop"));
    expect(await readdir(root)).toEqual([]);
  });
});
