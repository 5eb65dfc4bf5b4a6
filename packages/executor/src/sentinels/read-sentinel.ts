import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { decodeUtf8, errorCode, readBoundedFile } from "./bounded-file.js";
import { maxSentinelBytes } from "./sentinel-files.js";

/** One sentinel's text, or why there is none. */
export type SentinelText =
  | { readonly state: "absent" }
  | { readonly state: "invalid"; readonly note: string }
  | { readonly state: "read"; readonly text: string };

/**
 * The text of sentinel `name` at the root of `checkout`. Only a regular file counts: a symlink
 * is refused without being followed (the agent could aim it anywhere the server can read), as
 * is anything over 1 MiB or not valid UTF-8. Never rejects: a sentinel is the agent's optional
 * extra, so whatever goes wrong reading one becomes a note, not a failed job.
 */
export async function readSentinelText(checkout: string, name: string): Promise<SentinelText> {
  const path = join(checkout, name);
  try {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return invalid(name, "is a symlink; a sentinel is never followed");
    if (!stats.isFile()) return invalid(name, "is not a regular file");
    if (stats.size > maxSentinelBytes) return tooLarge(name, stats.size);
    const file = await readBoundedFile(path, maxSentinelBytes);
    if (file.kind === "symlink") return invalid(name, "is a symlink; a sentinel is never followed");
    if (file.kind === "not-a-file") return invalid(name, "is not a regular file");
    if (file.kind === "too-large") return tooLarge(name, file.size);
    const text = decodeUtf8(file.bytes);
    if (text === undefined) return invalid(name, "is not valid UTF-8");
    return { state: "read", text };
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { state: "absent" };
    return invalid(name, `could not be read (${code ?? "unknown error"})`);
  }
}

function tooLarge(name: string, size: number): SentinelText {
  return invalid(name, `is ${size} bytes, over the bound of ${maxSentinelBytes}`);
}

function invalid(name: string, why: string): SentinelText {
  return { state: "invalid", note: `\`${name}\` ${why}; it was ignored.` };
}
