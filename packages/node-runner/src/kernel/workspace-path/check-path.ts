import { quote, refusal } from "./refusal.js";

/** Longest workspace path accepted, in UTF-8 bytes (Linux's PATH_MAX). */
export const maxWorkspacePathBytes = 4096;

/** Longest segment (file or directory name) accepted, in UTF-8 bytes (NAME_MAX). */
export const maxWorkspaceSegmentBytes = 255;

// With the `u` flag a valid surrogate pair is one code point, so this finds only lone halves,
// which UTF-8 cannot encode (they would silently become U+FFFD and name another file).
const loneSurrogate = /\p{Cs}/u;

const encoder = new TextEncoder();

/**
 * Checks a workspace path as a model wrote it and returns its segments, without any I/O. A
 * workspace path is relative POSIX: names joined by single `/`, or `.` alone for the root
 * itself (no segments). Refused with `path_invalid`: a non-string, empty, absolute, `..` or `.`
 * segments (so `./a` too), `a//b`, a trailing `/`, a backslash, NUL or any C0, DEL or C1
 * control character, a lone surrogate, over {@link maxWorkspacePathBytes} bytes of UTF-8 or
 * a segment over {@link maxWorkspaceSegmentBytes}. Nothing is URL-decoded or normalized (no
 * NFC): `%2e%2e`, `．．` and `․․` are ordinary names inside the root.
 */
export function checkWorkspacePath(path: unknown): readonly string[] {
  const problem = pathProblem(path);
  if (problem !== undefined) throw refusal("path_invalid", problem);
  const text = path as string;
  return text === "." ? [] : text.split("/");
}

/** The workspace path of the first `count` segments (all by default) of a checked path; `.` for none. */
export function joinSegments(segments: readonly string[], count = segments.length): string {
  return count === 0 ? "." : segments.slice(0, count).join("/");
}

/** True when {@link checkWorkspacePath} would accept `path`; for tools that build paths from directory entries. */
export function isWorkspacePath(path: unknown): path is string {
  return pathProblem(path) === undefined;
}

/** What is wrong with a path, as a message that says how to write it; undefined when it is valid. */
function pathProblem(path: unknown): string | undefined {
  const rule = "Use a relative path with `/` between names, like `src/index.ts`, or `.` for the workspace root.";
  if (typeof path !== "string") return `The path must be a string. ${rule}`;
  if (path === "") return `The path is empty. ${rule}`;
  if (path === ".") return undefined;
  if (path.includes("\u0000")) return `The path ${quote(path)} contains a NUL character. ${rule}`;
  if (hasControlCharacter(path)) return `The path ${quote(path)} contains a control character. ${rule}`;
  if (loneSurrogate.test(path)) return `The path ${quote(path)} is not valid Unicode (a lone surrogate). ${rule}`;
  if (path.includes("\\")) {
    return `The path ${quote(path)} contains a backslash; paths use \`/\` between names. ${rule}`;
  }
  if (path.startsWith("/")) {
    return `The path ${quote(path)} is absolute; give it relative to the workspace root, without the leading \`/\`.`;
  }
  const bytes = encoder.encode(path).length;
  if (bytes > maxWorkspacePathBytes) {
    return `The path is ${bytes} bytes long; the limit is ${maxWorkspacePathBytes} bytes of UTF-8.`;
  }
  if (path.endsWith("/")) return `The path ${quote(path)} ends with \`/\`; remove the trailing slash.`;
  for (const segment of path.split("/")) {
    if (segment === "")
      return `The path ${quote(path)} has an empty segment (\`//\`); use a single \`/\` between names.`;
    if (segment === "..") {
      return `The path ${quote(path)} contains \`..\`; paths cannot leave the workspace or go up. Write the path from the root down.`;
    }
    if (segment === ".")
      return `The path ${quote(path)} contains a \`.\` segment; remove it (\`.\` alone means the root).`;
    const segmentBytes = encoder.encode(segment).length;
    if (segmentBytes > maxWorkspaceSegmentBytes) {
      return `A name in the path ${quote(path)} is ${segmentBytes} bytes long; each name is at most ${maxWorkspaceSegmentBytes} bytes of UTF-8.`;
    }
  }
  return undefined;
}

/**
 * True for a C0 control, DEL or a C1 control: invisible in messages and approvals, and never
 * part of a name a model should invent.
 */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f)) return true;
  }
  return false;
}
