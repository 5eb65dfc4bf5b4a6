import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionLogError } from "../errors/errors.js";
import { createFileSessionStore } from "./file-store.js";
import type { SessionRecord } from "./records.js";

// Logs are written here by an encoder that follows the documented format independently of
// the store's, so these tests also pin the format.

function encodeLine(seq: number, record: unknown, at = "2025-01-01T00:00:00.000Z"): string {
  const body = JSON.stringify({ seq, at, record });
  return `${body.slice(0, -1)},"crc":"${crc32(body).toString(16).padStart(8, "0")}"}\n`;
}

const history: readonly SessionRecord[] = [
  { kind: "session-open", formatVersion: 1, sessionId: "s1", agentId: "helper", params: {} },
  { kind: "run-start", runId: "run-1", input: [{ type: "text", text: "hi" }] },
  {
    kind: "assistant-message",
    runId: "run-1",
    turn: 1,
    message: { role: "assistant", content: [{ type: "text", text: "hello" }], toolCalls: [] },
    stopReason: "end",
    model: "test:model",
  },
  { kind: "run-end", runId: "run-1", status: "completed" },
];
const goodLines = history.map((record, index) => encodeLine(index + 1, record));

let root: string;
let logPath: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-recovery-"));
  logPath = join(root, "s1.jsonl");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function fileHash(): Promise<string> {
  return createHash("sha256")
    .update(await readFile(logPath))
    .digest("hex");
}

describe("torn trailing record", () => {
  it("is left out at open, kept on disk until the first append, then cut", async () => {
    await writeFile(logPath, goodLines.join(""));
    const lastLine = goodLines.at(-1) ?? "";
    const goodLength = Buffer.byteLength(goodLines.slice(0, -1).join(""));
    await truncate(logPath, goodLength + Math.floor(lastLine.length / 2));
    const before = await fileHash();

    const store = createFileSessionStore({ directory: root });
    const first = await store.open("s1");
    expect(first.records).toEqual(history.slice(0, -1));
    await first.close();
    expect(await fileHash()).toBe(before);

    const second = await store.open("s1");
    const replacement: SessionRecord = { kind: "run-end", runId: "run-1", status: "aborted" };
    await second.append([replacement]);
    await second.close();
    const text = await readFile(logPath, "utf8");
    const kept = goodLines.slice(0, -1).join("");
    expect(text.startsWith(kept)).toBe(true);
    const appended = text.slice(kept.length);
    expect(appended.endsWith("\n")).toBe(true);
    expect(appended.indexOf("\n")).toBe(appended.length - 1);
    const entry = JSON.parse(appended) as { seq: number; at: string; record: unknown };
    expect(entry).toMatchObject({ seq: 4, record: replacement });
    expect(appended).toBe(encodeLine(4, replacement, entry.at));

    const third = await store.open("s1");
    expect(third.records).toEqual([...history.slice(0, -1), replacement]);
    await third.close();
  });

  it("treats a file without any newline as holding no records", async () => {
    await writeFile(logPath, goodLines[0]?.slice(0, 30) ?? "");
    const log = await createFileSessionStore({ directory: root }).open("s1");
    expect(log.records).toEqual([]);
    await log.append(history);
    await log.close();
    const reopened = await createFileSessionStore({ directory: root }).open("s1");
    expect(reopened.records).toEqual(history);
    await reopened.close();
  });

  it("opens an empty file with no records", async () => {
    await writeFile(logPath, "");
    const log = await createFileSessionStore({ directory: root }).open("s1");
    expect(log.records).toEqual([]);
    await log.close();
  });
});

function flipByteInside(line: string, marker: string): string {
  const bytes = Buffer.from(line);
  const position = bytes.indexOf(marker) + 1;
  bytes[position] = (bytes[position] ?? 0) ^ 0x01;
  return bytes.toString("utf8");
}

const refusals: ReadonlyArray<{ name: string; content: () => string; code?: string; line: number }> = [
  {
    name: "a line in the middle that is not JSON",
    content: () => [goodLines[0], "{not json}\n", ...goodLines.slice(2)].join(""),
    line: 2,
  },
  {
    name: "a bad crc from one flipped byte inside a string",
    content: () => [...goodLines.slice(0, 2), flipByteInside(goodLines[2] ?? "", '"hello'), goodLines[3]].join(""),
    line: 3,
  },
  { name: "a sequence gap", content: () => [goodLines[0], ...goodLines.slice(2)].join(""), line: 2 },
  {
    name: "reordered lines",
    content: () => [goodLines[0], goodLines[2], goodLines[1], goodLines[3]].join(""),
    line: 2,
  },
  {
    name: "a duplicated line",
    content: () => [goodLines[0], goodLines[1], goodLines[1], ...goodLines.slice(2)].join(""),
    line: 3,
  },
  {
    name: "an unknown record kind",
    content: () => [goodLines[0], encodeLine(2, { kind: "state-commit", runId: "run-1" })].join(""),
    line: 2,
  },
  {
    name: "a record missing a required field",
    content: () => [goodLines[0], encodeLine(2, { kind: "run-start", input: [] })].join(""),
    line: 2,
  },
  {
    name: "a future format version",
    content: () => [encodeLine(1, { ...history[0], formatVersion: 2 }), ...goodLines.slice(1)].join(""),
    code: "session_log_unsupported",
    line: 1,
  },
  {
    name: "a missing session-open",
    content: () =>
      history
        .slice(1)
        .map((record, index) => encodeLine(index + 1, record))
        .join(""),
    line: 1,
  },
  {
    name: "a second session-open",
    content: () => [...goodLines.slice(0, 2), encodeLine(3, history[0])].join(""),
    line: 3,
  },
  {
    name: "an empty line",
    content: () => [goodLines[0], "\n", goodLines[1]].join(""),
    line: 2,
  },
];

describe("an invalid history", () => {
  for (const refusal of refusals) {
    it(`is refused for ${refusal.name}, changing nothing and releasing the lock`, async () => {
      await writeFile(logPath, refusal.content());
      const before = await fileHash();
      const store = createFileSessionStore({ directory: root });

      const error = (await store.open("s1").catch((caught: unknown) => caught)) as SessionLogError;
      expect(error).toMatchObject({
        name: "SessionLogError",
        code: refusal.code ?? "session_log_corrupt",
        path: logPath,
        line: refusal.line,
      });
      expect(error.message).toContain(`line ${refusal.line}`);
      expect(error.message).toContain("left unchanged");
      expect(await fileHash()).toBe(before);
      expect(await readdir(root)).toEqual(["s1.jsonl"]);

      await writeFile(logPath, goodLines.join(""));
      const repaired = await store.open("s1");
      expect(repaired.records).toEqual(history);
      await repaired.close();
    });
  }
});
