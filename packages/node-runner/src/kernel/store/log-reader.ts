import { readFile } from "node:fs/promises";
import { SessionLogError } from "../errors/errors.js";
import { checkLineCrc } from "./log-line.js";
import type { SessionRecord } from "./records.js";
import { checkRecordPlacement, describeInvalidRecord } from "./validate-record.js";

/** What a log file holds, as far as it is valid. */
export interface LogContents {
  /** The records of the complete lines, oldest first. */
  readonly records: SessionRecord[];
  /** Bytes up to and including the last newline: the length to cut a torn tail back to. */
  readonly validLength: number;
  /** Bytes after the last newline: a torn trailing record (0 when the file ends cleanly). */
  readonly tornLength: number;
  /** False when there was no file. */
  readonly exists: boolean;
}

const newline = 0x0a;

function corrupt(path: string, line: number, problem: string, cause?: unknown): SessionLogError {
  return new SessionLogError(
    "session_log_corrupt",
    `The session log ${path} is invalid at line ${line}: ${problem}. The file was left unchanged.`,
    { path, line, cause },
  );
}

/**
 * Reads a whole log file once and checks every complete line: it is JSON, its crc matches its
 * bytes, `seq` counts 1, 2, 3… without gaps, and its record has a known kind, the shape of
 * that kind and a valid place (session-open first and only first). Bytes after the last
 * newline are a torn trailing record, never acknowledged, and are left out (not cut: the
 * caller cuts them on its first append). A missing or empty file has no records.
 *
 * Rejects with a SessionLogError ("session_log_corrupt", or "session_log_unsupported" for a
 * newer format version) naming the path and the 1-based line. Never writes.
 */
export async function readLogFile(path: string): Promise<LogContents> {
  const bytes = await readLogBytes(path);
  if (bytes === undefined) return { records: [], validLength: 0, tornLength: 0, exists: false };
  const { records, validLength, problem } = parseLogLines(bytes, path);
  if (problem) throw problem;
  return { records, validLength, tornLength: bytes.length - validLength, exists: true };
}

/**
 * The records of a log file up to its first torn or invalid line, for a reader that is not
 * its writer (a catalog): the same checks as {@link readLogFile}, but a problem ends the list
 * instead of failing it. Never writes; a missing file has no records.
 */
export async function readLogPrefix(path: string): Promise<SessionRecord[]> {
  const bytes = await readLogBytes(path);
  return bytes === undefined ? [] : parseLogLines(bytes, path).records;
}

async function readLogBytes(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The valid records of `bytes` in order, and the first line's problem that ended them, if any. */
function parseLogLines(
  bytes: Buffer,
  path: string,
): { records: SessionRecord[]; validLength: number; problem?: SessionLogError } {
  const validLength = bytes.lastIndexOf(newline) + 1;
  // Decoding once and walking the bytes and the text side by side keeps the read close to a
  // plain readFile + JSON.parse: a newline byte never occurs inside a multi-byte UTF-8
  // character, so line N of the text is exactly line N of the bytes.
  const text = bytes.toString("utf8", 0, validLength);
  const records: SessionRecord[] = [];
  let byteStart = 0;
  let charStart = 0;
  while (byteStart < validLength) {
    const byteEnd = bytes.indexOf(newline, byteStart);
    const charEnd = text.indexOf("\n", charStart);
    const line = text.slice(charStart, charEnd);
    const checked = checkLine(bytes, byteStart, byteEnd, line, records, path);
    if (checked instanceof SessionLogError) return { records, validLength, problem: checked };
    records.push(checked);
    byteStart = byteEnd + 1;
    charStart = charEnd + 1;
  }
  return { records, validLength };
}

/** The record of one complete line (line number `records.length + 1`), or why it is invalid. */
function checkLine(
  bytes: Buffer,
  byteStart: number,
  byteEnd: number,
  line: string,
  records: readonly SessionRecord[],
  path: string,
): SessionRecord | SessionLogError {
  const lineNumber = records.length + 1;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch (error) {
    return corrupt(path, lineNumber, "the line is not JSON", error);
  }
  const crcProblem = checkLineCrc(bytes, byteStart, byteEnd, line);
  if (crcProblem !== undefined) return corrupt(path, lineNumber, crcProblem);
  if (typeof entry !== "object" || entry === null) return corrupt(path, lineNumber, "the line is not a JSON object");
  const { seq, at, record } = entry as { seq?: unknown; at?: unknown; record?: unknown };
  if (seq !== lineNumber) {
    return corrupt(path, lineNumber, `"seq" is ${JSON.stringify(seq)} where ${lineNumber} was expected`);
  }
  if (typeof at !== "string") return corrupt(path, lineNumber, '"at" is not a string');
  const shapeProblem = describeInvalidRecord(record);
  if (shapeProblem !== undefined) return corrupt(path, lineNumber, shapeProblem);
  const placement = checkRecordPlacement(record as SessionRecord, records.length);
  if (placement !== undefined) {
    return new SessionLogError(
      placement.code,
      `The session log ${path} cannot be used (line ${lineNumber}): ${placement.problem}. The file was left unchanged.`,
      { path, line: lineNumber },
    );
  }
  return record as SessionRecord;
}
