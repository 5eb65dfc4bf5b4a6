import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mulberry32 } from "../../../test/support/random.ts";
import { SessionLogError } from "../errors/errors.js";
import { createFileSessionStore } from "./file-store.js";
import type { SessionRecord } from "./records.js";
import type { SessionStore } from "./types.js";

// Fuzzes what the file store reads. A realistic log is written through the public API, then
// several hundred corrupted copies of it are opened. What each open must do is derived from
// the corrupted bytes alone: split them into complete lines (each ended by "\n") and a
// trailing segment; the open must succeed iff every complete line equals the original's line
// at the same index, and then hand back exactly the original records of those lines. Any
// other file must be refused with a SessionLogError naming the first line that differs. In
// every case the file must be left byte for byte as it was and the lock given back.
//
// The seed is fixed so that failures reproduce; set STORE_FUZZ_SEED to explore others.

const seed = Number(process.env.STORE_FUZZ_SEED ?? 0x5eed_c0de) >>> 0;
const seedLabel = `0x${seed.toString(16).padStart(8, "0")}`;
const sessionId = "fuzz-session";

// ---------------------------------------------------------------------------------------
// The original history: a session-open and five Runs with tool calls, ~40 records, with
// non-ASCII text (2-, 3- and 4-byte UTF-8) so truncations can fall inside a character.

function buildRuns(): SessionRecord[][] {
  const prompts = [
    "Liste die Dateien im Ordner „Grüße“ auf, bitte.",
    "日本語のファイルを読んでください。",
    "Summarise the 🏰 castle notes — naïve café edition.",
    "Ελληνικά: διάβασε το README και γράψε περίληψη.",
    "Finish up: remove the tmp files ✓ and report.",
  ];
  const tools = ["read_file", "list_dir", "grep", "write_file"];
  const endings: Array<Pick<Extract<SessionRecord, { kind: "run-end" }>, "status" | "error">> = [
    { status: "completed" },
    { status: "completed" },
    { status: "failed", error: { code: "model_failed", message: "Le modèle a échoué 🤖 (HTTP 529)." } },
    { status: "aborted" },
    { status: "failed", error: { code: "tool_failed", message: "Unexpected end of JSON input — réessayez ❌" } },
  ];
  const runs: SessionRecord[][] = [];
  for (let index = 0; index < prompts.length; index++) {
    const runId = `run-${index + 1}`;
    const calls = [0, 1].map((offset) => ({
      id: `call-${index + 1}-${offset + 1}`,
      name: tools[(index + offset) % tools.length] ?? "read_file",
      input: { path: `docs/ファイル-${index}-${offset}.md`, pattern: "Straße|straße", limit: 20 + offset },
    }));
    const run: SessionRecord[] = [
      { kind: "run-start", runId, input: [{ type: "text", text: prompts[index] ?? "" }] },
      {
        kind: "assistant-message",
        runId,
        turn: 1,
        message: {
          role: "assistant",
          content: [
            { type: "text", text: `Je regarde ça — turn 1 of ${runId} 👀` },
            { type: "provider", provider: "anthropic", data: { signature: `sig-${index}-αβγ`, n: [index, 1] } },
          ],
          toolCalls: calls,
        },
        stopReason: "tool-calls",
        model: "anthropic:claude-sonnet",
        usage: { inputTokens: 1200 + index, outputTokens: 80 + index, cacheReadTokens: 900, costUsd: 0.0042 },
      },
    ];
    for (const call of calls) {
      run.push({ kind: "tool-start", runId, turn: 1, toolCall: call });
    }
    for (const [offset, call] of calls.entries()) {
      const isError = index === 2 && offset === 1;
      run.push({
        kind: "tool-end",
        runId,
        turn: 1,
        toolCallId: call.id,
        toolName: call.name,
        input: call.input,
        result: {
          content: [
            {
              type: "text",
              text: isError
                ? "ENOENT: no such file „ファイル“"
                : `# Notes ${index}\nZeile mit Umlauten: äöü ß\n中文内容 🏯\n`,
            },
          ],
          isError,
        },
      });
    }
    run.push({
      kind: "assistant-message",
      runId,
      turn: 2,
      message: {
        role: "assistant",
        content: [{ type: "text", text: `Fertig. Résumé: ${"…".repeat(index + 1)} done ✔` }],
        toolCalls: [],
      },
      stopReason: "end",
      model: "anthropic:claude-sonnet",
      usage: { inputTokens: 1500 + index, outputTokens: 40 },
    });
    run.push({ kind: "run-end", runId, ...endings[index] } as SessionRecord);
    runs.push(run);
  }
  return runs;
}

const opening: SessionRecord = {
  kind: "session-open",
  formatVersion: 1,
  sessionId,
  agentId: "coding-agent",
  params: { repo: "castellan", locale: "de-DÉ", owner: "Zoë 🦊", depth: 3, flags: [true, null] },
};

// ---------------------------------------------------------------------------------------
// Mutations. Each works on the whole file's bytes; line operations treat "\n"-terminated
// lines as units and keep any trailing unterminated segment where it is.

type Family = "truncate" | "flip" | "swap" | "duplicate" | "delete" | "combined";

interface Variant {
  readonly family: Family;
  readonly description: string;
  readonly bytes: Buffer;
  /** A flip hit the formatVersion digit of a session-open line still at the start. */
  readonly touchesFormatVersion: boolean;
}

interface Split {
  /** Complete lines, each with its "\n". */
  readonly lines: Buffer[];
  /** Bytes after the last "\n". */
  readonly tail: Buffer;
}

function splitLines(bytes: Buffer): Split {
  const lines: Buffer[] = [];
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, start);
    if (end === -1) break;
    lines.push(bytes.subarray(start, end + 1));
    start = end + 1;
  }
  return { lines, tail: bytes.subarray(start) };
}

function joinLines(lines: readonly Buffer[], tail: Buffer): Buffer {
  return Buffer.concat([...lines, tail]);
}

interface Mutation {
  readonly bytes: Buffer;
  readonly description: string;
  readonly touchesFormatVersion?: boolean;
}

class Mutator {
  readonly #random: () => number;
  readonly #firstLine: Buffer;
  /** Offset of the formatVersion digit inside the first line. */
  readonly #versionDigit: number;

  constructor(random: () => number, firstLine: Buffer) {
    this.#random = random;
    this.#firstLine = firstLine;
    this.#versionDigit = firstLine.indexOf('"formatVersion":') + '"formatVersion":'.length;
  }

  /** An integer in [low, high). */
  int(low: number, high: number): number {
    return low + Math.floor(this.#random() * (high - low));
  }

  truncate(bytes: Buffer, at = this.int(0, bytes.length + 1)): Mutation {
    return { bytes: Buffer.from(bytes.subarray(0, at)), description: `truncate to ${at}/${bytes.length} bytes` };
  }

  flip(bytes: Buffer, position = this.int(0, bytes.length), bit = this.int(0, 8)): Mutation {
    const copy = Buffer.from(bytes);
    const before = copy[position] ?? 0;
    copy[position] = before ^ (1 << bit);
    const touchesFormatVersion =
      position === this.#versionDigit &&
      bytes.subarray(0, this.#versionDigit).equals(this.#firstLine.subarray(0, this.#versionDigit));
    return {
      bytes: copy,
      description: `flip bit ${bit} of byte ${position} (0x${before.toString(16)} -> 0x${(copy[position] ?? 0).toString(16)})`,
      touchesFormatVersion,
    };
  }

  swap(bytes: Buffer): Mutation | undefined {
    const { lines, tail } = splitLines(bytes);
    if (lines.length < 2) return undefined;
    const first = this.int(0, lines.length);
    let second = this.int(0, lines.length - 1);
    if (second >= first) second++;
    const swapped = [...lines];
    [swapped[first], swapped[second]] = [lines[second] as Buffer, lines[first] as Buffer];
    return { bytes: joinLines(swapped, tail), description: `swap lines ${first + 1} and ${second + 1}` };
  }

  duplicate(bytes: Buffer): Mutation | undefined {
    const { lines, tail } = splitLines(bytes);
    if (lines.length === 0) return undefined;
    const index = this.int(0, lines.length);
    const line = lines[index] as Buffer;
    if (this.#random() < 0.5) {
      const copy = [...lines.slice(0, index + 1), line, ...lines.slice(index + 1)];
      return { bytes: joinLines(copy, tail), description: `duplicate line ${index + 1} in place` };
    }
    return { bytes: Buffer.concat([bytes, line]), description: `append a copy of line ${index + 1} at the end` };
  }

  deleteMiddle(bytes: Buffer): Mutation | undefined {
    const { lines, tail } = splitLines(bytes);
    if (lines.length < 3) return undefined;
    const index = this.int(1, lines.length - 1);
    const kept = [...lines.slice(0, index), ...lines.slice(index + 1)];
    return { bytes: joinLines(kept, tail), description: `delete line ${index + 1}` };
  }
}

function generateVariants(original: Buffer, random: () => number): Variant[] {
  const { lines } = splitLines(original);
  const mutator = new Mutator(random, lines[0] as Buffer);
  const variants: Variant[] = [];
  const add = (family: Family, mutation: Mutation | undefined): void => {
    if (mutation === undefined) return;
    variants.push({
      family,
      description: mutation.description,
      bytes: mutation.bytes,
      touchesFormatVersion: mutation.touchesFormatVersion ?? false,
    });
  };

  // Truncation: at every line boundary (including empty and whole), at random offsets (mostly
  // mid-line), and inside multi-byte UTF-8 characters.
  let boundary = 0;
  add("truncate", mutator.truncate(original, 0));
  for (const line of lines) {
    boundary += line.length;
    add("truncate", mutator.truncate(original, boundary));
  }
  for (let count = 0; count < 80; count++) add("truncate", mutator.truncate(original));
  const insideCharacters: number[] = [];
  for (let position = 0; position < original.length; position++) {
    const byte = original[position] ?? 0;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 0;
    for (let inside = 1; inside < length; inside++) insideCharacters.push(position + inside);
  }
  for (let count = 0; count < 40; count++) {
    const at = insideCharacters[mutator.int(0, insideCharacters.length)] ?? 0;
    const cut = mutator.truncate(original, at);
    add("truncate", { ...cut, description: `${cut.description} (inside a multi-byte character)` });
  }

  for (let count = 0; count < 160; count++) add("flip", mutator.flip(original));
  // Flips that make a newline ("J" is 0x4a, one bit from "\n"), splitting a line in two, among
  // them one in the last line; and flips of the final newline, which leave a torn last line.
  const newlineFlips: number[] = [];
  for (let position = original.indexOf("J"); position !== -1; position = original.indexOf("J", position + 1)) {
    newlineFlips.push(position);
  }
  const lastLineStart = original.length - (lines.at(-1)?.length ?? 0);
  const inLastLine = newlineFlips.filter((position) => position >= lastLineStart);
  for (let count = 0; count < 8; count++) {
    const position = newlineFlips[mutator.int(0, newlineFlips.length)] ?? 0;
    add("flip", mutator.flip(original, position, 6));
  }
  if (inLastLine[0] !== undefined) add("flip", mutator.flip(original, inLastLine[0], 6));
  for (const bit of [0, 5]) add("flip", mutator.flip(original, original.length - 1, bit));
  for (let count = 0; count < 50; count++) add("swap", mutator.swap(original));
  for (let count = 0; count < 50; count++) add("duplicate", mutator.duplicate(original));
  for (let count = 0; count < 40; count++) add("delete", mutator.deleteMiddle(original));

  // Two or three mutations in a row, sometimes ending with a truncation.
  const steps: Array<(bytes: Buffer) => Mutation | undefined> = [
    (bytes) => mutator.flip(bytes),
    (bytes) => mutator.swap(bytes),
    (bytes) => mutator.duplicate(bytes),
    (bytes) => mutator.deleteMiddle(bytes),
    (bytes) => mutator.truncate(bytes, mutator.int(Math.floor(bytes.length / 2), bytes.length + 1)),
  ];
  for (let count = 0; count < 40; count++) {
    let bytes = original;
    const descriptions: string[] = [];
    let touchesFormatVersion = false;
    const stepCount = mutator.int(2, 4);
    for (let step = 0; step < stepCount; step++) {
      const mutation = steps[mutator.int(0, steps.length)]?.(bytes);
      if (mutation === undefined) continue;
      bytes = mutation.bytes;
      descriptions.push(mutation.description);
      // A later step may move or restore the first line; this only widens what is allowed.
      touchesFormatVersion ||= mutation.touchesFormatVersion ?? false;
    }
    add("combined", { bytes, description: descriptions.join(", then "), touchesFormatVersion });
  }
  // A torn last line, then a flip inside the torn part that makes a newline: the new complete
  // line is only the start of the original's, so the file is refused.
  for (const position of inLastLine) {
    const cut = mutator.truncate(original, mutator.int(position + 1, original.length));
    const flip = mutator.flip(cut.bytes, position, 6);
    add("combined", { ...flip, description: `${cut.description}, then ${flip.description}` });
  }
  return variants;
}

// ---------------------------------------------------------------------------------------
// The oracle: what opening these bytes must do.

interface Expectation {
  /** Original records the open must return, or undefined when it must be refused. */
  readonly records: readonly SessionRecord[] | undefined;
  /** When refused: the 1-based line of the first complete line that differs from the original's. */
  readonly line: number;
  readonly completeLines: number;
  readonly tailLength: number;
}

function expectationFor(
  bytes: Buffer,
  originalLines: readonly Buffer[],
  records: readonly SessionRecord[],
): Expectation {
  const { lines, tail } = splitLines(bytes);
  const mismatch = lines.findIndex((line, index) => !line.equals(originalLines[index] ?? Buffer.alloc(0)));
  return {
    records: mismatch === -1 ? records.slice(0, lines.length) : undefined,
    line: mismatch + 1,
    completeLines: lines.length,
    tailLength: tail.length,
  };
}

// ---------------------------------------------------------------------------------------

let root: string;
let logPath: string;
let store: SessionStore;
let originalBytes: Buffer;
let originalLines: Buffer[];
let originalRecords: SessionRecord[];
let variants: Variant[];

type Outcome = "accepted" | "refused";
const counts = new Map<Family, Record<Outcome, number>>();
/** Accepted truncations kept to try an append on. */
const appendCandidates: Array<{ variant: Variant; label: string; expected: Expectation }> = [];

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-store-fuzz-"));
  logPath = join(root, `${encodeURIComponent(sessionId)}.jsonl`);
  store = createFileSessionStore({ directory: root });

  // A fixed clock makes the original file, and so every variant, identical from run to run.
  vi.useFakeTimers({ toFake: ["Date"], now: new Date("2025-03-14T15:09:26.535Z") });
  try {
    const log = await store.open(sessionId);
    await log.append([opening]);
    for (const run of buildRuns()) {
      // A Run's records are appended as the Run produces them: start, each turn, the tools, the end.
      await log.append(run.slice(0, 2));
      await log.append(run.slice(2, -2));
      await log.append(run.slice(-2));
    }
    await log.close();
  } finally {
    vi.useRealTimers();
  }
  originalRecords = [opening, ...buildRuns().flat()];
  originalBytes = await readFile(logPath);
  originalLines = splitLines(originalBytes).lines;
  variants = generateVariants(originalBytes, mulberry32(seed));
});

afterAll(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

async function checkVariant(variant: Variant, index: number): Promise<void> {
  const label = `seed ${seedLabel}, case ${index} [${variant.family}]: ${variant.description}`;
  const expected = expectationFor(variant.bytes, originalLines, originalRecords);
  await writeFile(logPath, variant.bytes);
  const before = sha256(variant.bytes);
  expect(sha256(await readFile(logPath)), label).toBe(before);

  let outcome: Outcome;
  let caught: unknown;
  const log = await store.open(sessionId).catch((error: unknown) => {
    caught = error;
    return undefined;
  });
  if (log !== undefined) {
    outcome = "accepted";
    expect(expected.records, `${label}: accepted, but the oracle says refuse at line ${expected.line}`).toBeDefined();
    // Exactly the complete lines before any torn tail, and they are the original's first ones.
    expect(log.records.length, label).toBe(expected.completeLines);
    expect(log.records, label).toEqual(expected.records);
    expect(log.records, label).toEqual(originalRecords.slice(0, log.records.length));
    await log.close();
    if (expected.tailLength > 0 && appendCandidates.length < 200 && variant.family === "truncate") {
      appendCandidates.push({ variant, label, expected });
    }
  } else {
    outcome = "refused";
    if (!(caught instanceof SessionLogError)) {
      throw new Error(`${label}: open threw something other than a SessionLogError: ${String(caught)}`, {
        cause: caught,
      });
    }
    expect(expected.records, `${label}: refused (${caught.message}) but the oracle says accept`).toBeUndefined();
    if (caught.code === "session_log_unsupported") {
      expect(variant.touchesFormatVersion, `${label}: unsupported without touching formatVersion`).toBe(true);
    } else {
      expect(caught.code, label).toBe("session_log_corrupt");
    }
    expect(caught.path, label).toBe(logPath);
    expect(caught.line, `${label}: ${caught.message}`).toBe(expected.line);
    expect(caught.message, label).toMatch(
      new RegExp(
        `^The session log .+ (is invalid at line ${expected.line}|cannot be used \\(line ${expected.line}\\)): \\S.*\\. The file was left unchanged\\.$`,
        "s",
      ),
    );
  }

  expect(sha256(await readFile(logPath)), `${label}: the file changed`).toBe(before);
  expect(await readdir(root), `${label}: the lock was kept`).toEqual([`${encodeURIComponent(sessionId)}.jsonl`]);
  const tally = counts.get(variant.family) ?? { accepted: 0, refused: 0 };
  tally[outcome]++;
  counts.set(variant.family, tally);
}

describe(`file store reading under corruption (fuzz, seed ${seedLabel})`, () => {
  it("writes a realistic original log that reopens intact", async () => {
    expect(originalRecords.length).toBeGreaterThanOrEqual(40);
    expect(originalLines.length).toBe(originalRecords.length);
    expect(originalBytes.at(-1)).toBe(0x0a);
    // Non-ASCII text: more bytes than characters.
    expect(originalBytes.length).toBeGreaterThan(originalBytes.toString("utf8").length);
    const log = await store.open(sessionId);
    expect(log.records).toEqual(originalRecords);
    await log.close();
    expect(variants.length).toBeGreaterThanOrEqual(400);
  });

  const families: readonly Family[] = ["truncate", "flip", "swap", "duplicate", "delete", "combined"];
  for (const family of families) {
    it(`opens every ${family} variant as the bytes dictate, never changing the file`, async () => {
      let checked = 0;
      for (const [index, variant] of variants.entries()) {
        if (variant.family !== family) continue;
        await checkVariant(variant, index);
        checked++;
      }
      // checkVariant asserts on each; a family with no variants would pass having checked nothing.
      expect(checked, `${family} variants`).toBeGreaterThan(0);
    });
  }

  it("covers each family: refusals from every corrupting family, acceptances from truncation", () => {
    const summary = JSON.stringify(Object.fromEntries(families.map((family) => [family, counts.get(family)])));
    for (const family of families) {
      const tally = counts.get(family);
      expect(tally, `${family} in ${summary}`).toBeDefined();
      // A pure truncation never changes a complete line, so it can only be accepted.
      if (family === "truncate") expect(tally?.refused, `${family} in ${summary}`).toBe(0);
      else expect(tally?.refused, `${family} in ${summary}`).toBeGreaterThan(0);
    }
    expect(counts.get("truncate")?.accepted, summary).toBeGreaterThan(0);
    expect(appendCandidates.length).toBeGreaterThanOrEqual(20);
  });

  it("appends after an accepted truncation: the torn tail is cut and seq stays contiguous", async () => {
    const step = appendCandidates.length / 20;
    const sample = Array.from({ length: 20 }, (_, index) => appendCandidates[Math.floor(index * step)]);
    // Also one whose only line is torn, so the append must start a log.
    const startsFresh = appendCandidates.find((candidate) => candidate.expected.completeLines === 0);
    if (startsFresh !== undefined) sample.push(startsFresh);
    expect(sample.length).toBeGreaterThanOrEqual(20);
    for (const candidate of sample) {
      if (candidate === undefined) continue;
      const { variant, label, expected } = candidate;
      const kept = expected.completeLines;
      await writeFile(logPath, variant.bytes);
      const added: SessionRecord =
        kept === 0 ? opening : { kind: "run-end", runId: "run-recovered", status: "aborted" };

      const log = await store.open(sessionId);
      expect(log.records, label).toEqual(originalRecords.slice(0, kept));
      await log.append([added]);
      await log.close();

      const reopened = await store.open(sessionId);
      expect(reopened.records, label).toEqual([...originalRecords.slice(0, kept), added]);
      await reopened.close();

      const { lines, tail } = splitLines(await readFile(logPath));
      expect(tail.length, `${label}: the file does not end with a newline`).toBe(0);
      expect(lines.length, label).toBe(kept + 1);
      for (const [index, line] of lines.entries()) {
        if (index < kept) expect(line.equals(originalLines[index] as Buffer), `${label}: line ${index + 1}`).toBe(true);
        const entry = JSON.parse(line.toString("utf8")) as { seq: unknown };
        expect(entry.seq, `${label}: seq of line ${index + 1}`).toBe(index + 1);
      }
      expect(await readdir(root), label).toEqual([`${encodeURIComponent(sessionId)}.jsonl`]);
    }
  });
});
