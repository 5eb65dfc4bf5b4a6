import { createHash } from "node:crypto";
import { ToolInputError } from "@castellan/harness";
import { isWorkspacePath } from "../../../kernel/workspace-path/check-path.js";
import type { SearchRequest } from "./request.js";

/** Where in a file a scan starts: the start of a line. */
export interface LinePosition {
  /** Byte offset of the line's first byte. */
  readonly byte: number;
  /** Its 1-based line number. */
  readonly line: number;
  /** The line was already reported (on the page before): skip to the next line first. */
  readonly reported: boolean;
}

/** Where the walk stopped: a file, and a line in it or the file's end. */
export interface SearchCursor {
  /** Root-relative workspace path of the file. */
  readonly path: string;
  readonly segments: readonly string[];
  /** Where to continue in the file; undefined: after it (its rest is skipped). */
  readonly position: LinePosition | undefined;
}

const version = 1;
const atLine = 0;
const afterReportedLine = 1;
const afterFile = 2;

/**
 * The cursor as a page's `nextOffset`: base64url of the JSON array
 * `[1, fingerprint, path, byte, line, mode]`, where `fingerprint` is 16 hex digits of the
 * SHA-256 of the query, path, glob, regex and ignoreCase (so a cursor for another search is
 * refused), and `mode` is 0 (continue at the line at `byte`), 1 (that line was reported:
 * continue after it) or 2 (continue after the file).
 */
export function encodeCursor(request: SearchRequest, cursor: SearchCursor): string {
  const { position } = cursor;
  const fields =
    position === undefined
      ? [version, fingerprint(request), cursor.path, 0, 1, afterFile]
      : [
          version,
          fingerprint(request),
          cursor.path,
          position.byte,
          position.line,
          position.reported ? afterReportedLine : atLine,
        ];
  return Buffer.from(JSON.stringify(fields), "utf8").toString("base64url");
}

/**
 * The cursor in `offset`, or `offset_invalid` when it is not one this engine made for the
 * same search, or names a file outside the searched path.
 */
export function decodeCursor(request: SearchRequest, offset: string): SearchCursor {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(offset, "base64url").toString("utf8"));
  } catch {
    throw invalidOffset();
  }
  if (!Array.isArray(fields) || fields.length !== 6) throw invalidOffset();
  const [given, print, path, byte, line, mode] = fields as unknown[];
  if (given !== version || print !== fingerprint(request)) throw invalidOffset();
  if (!isWorkspacePath(path) || path === ".") throw invalidOffset();
  const segments = path.split("/");
  const inside = request.segments.every((segment, index) => segments[index] === segment);
  if (!inside || segments.length < request.segments.length) throw invalidOffset();
  if (!Number.isSafeInteger(byte) || (byte as number) < 0) throw invalidOffset();
  if (!Number.isSafeInteger(line) || (line as number) < 1) throw invalidOffset();
  if (mode !== atLine && mode !== afterReportedLine && mode !== afterFile) throw invalidOffset();
  const position =
    mode === afterFile
      ? undefined
      : { byte: byte as number, line: line as number, reported: mode === afterReportedLine };
  return { path, segments, position };
}

const fingerprints = new WeakMap<SearchRequest, string>();

function fingerprint(request: SearchRequest): string {
  const known = fingerprints.get(request);
  if (known !== undefined) return known;
  const identity = JSON.stringify([
    request.query,
    request.path,
    request.glob ?? null,
    request.regex,
    request.ignoreCase,
  ]);
  const print = createHash("sha256").update(identity).digest("hex").slice(0, 16);
  fingerprints.set(request, print);
  return print;
}

/** The `offset_invalid` refusal. */
export function invalidOffset(): ToolInputError {
  return new ToolInputError(
    "offset_invalid",
    "This offset is not a nextOffset that search returned for the same query, path, glob, regex and ignoreCase. Pass a page's nextOffset unchanged with the same other arguments, or omit offset to start again.",
  );
}
