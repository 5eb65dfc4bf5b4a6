import { createHash } from "node:crypto";
import { errorMessage, isToolInputError } from "@castellan/harness";
import { openResolvedFile } from "../../../platform/paths/open-file.js";
import { resolveForRead } from "../../../platform/paths/resolve-read.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";

/** The file name guidance is read from, in the root and in each directory on a target's way. */
export const guidanceFileName = "AGENTS.md";

/** One guidance file as read for a Run: its text up to what the budget left, and its hash. */
export type GuidanceSource =
  | {
      readonly status: "read";
      /** Workspace path of the file, e.g. `AGENTS.md` or `src/AGENTS.md`. */
      readonly path: string;
      /** Size of the whole file in bytes. */
      readonly bytes: number;
      /** SHA-256 of the whole file, hex. */
      readonly sha256: string;
      /** The part of the text that fits the budget: cut at a character boundary, possibly empty. */
      readonly text: string;
      /** UTF-8 bytes of `text`. */
      readonly includedBytes: number;
      /** True when bytes were left out for the budget (the source was cut or omitted). */
      readonly truncated: boolean;
    }
  | { readonly status: "unreadable"; readonly path: string; readonly reason: string };

const chunkBytes = 65_536;

const noDirectory = ["path_not_found", "not_a_directory", "path_through_symlink"];

/**
 * Reads the guidance file of a directory (its workspace path's segments), keeping at most
 * `budget` bytes of its text; undefined when the directory has none. The file is hashed
 * whole through a fixed buffer, so a huge file costs its reading time but not its size in
 * memory. A file that cannot be read under the root's rules (a link out of the root, a FIFO,
 * invalid UTF-8) is an `unreadable` source, stated to the model rather than skipped.
 */
export async function readGuidanceSource(
  root: WorkspaceRoot,
  directory: readonly string[],
  budget: number,
): Promise<GuidanceSource | undefined> {
  const path = [...directory, guidanceFileName].join("/");
  let handle: Awaited<ReturnType<typeof openResolvedFile>>;
  try {
    handle = await openResolvedFile(await resolveForRead(root, path));
  } catch (error) {
    // No directory there to hold guidance (missing, a file, or a link the tools refuse to
    // pass through): the call on that path meets its own refusal, and there is nothing to read.
    if (noDirectory.some((code) => isToolInputError(error, code))) return undefined;
    return { status: "unreadable", path, reason: errorMessage(error) };
  }
  try {
    const hash = createHash("sha256");
    const kept = new Uint8Array(Math.min(budget, handle.size));
    const buffer = new Uint8Array(chunkBytes);
    let keptBytes = 0;
    let position = 0;
    const decoder = new TextDecoder("utf-8", { fatal: true });
    while (true) {
      const count = await handle.read(buffer, position);
      if (count === 0) break;
      const chunk = buffer.subarray(0, count);
      hash.update(chunk);
      // Checks the whole file is UTF-8 while keeping only the budget's share of it.
      decoder.decode(chunk, { stream: true });
      const room = kept.length - keptBytes;
      if (room > 0) {
        kept.set(chunk.subarray(0, Math.min(room, count)), keptBytes);
        keptBytes += Math.min(room, count);
      }
      position += count;
    }
    decoder.decode();
    const cut = characterBoundary(kept.subarray(0, keptBytes), position > keptBytes);
    const text = new TextDecoder().decode(cut);
    return {
      status: "read",
      path,
      bytes: position,
      sha256: hash.digest("hex"),
      text,
      includedBytes: cut.length,
      truncated: cut.length < position,
    };
  } catch (error) {
    const reason = error instanceof TypeError ? "it is not valid UTF-8" : errorMessage(error);
    return { status: "unreadable", path, reason };
  } finally {
    await handle.close();
  }
}

/** `bytes` without a character cut at its end, when more of the text follows it. */
function characterBoundary(bytes: Uint8Array, cut: boolean): Uint8Array {
  if (!cut) return bytes;
  let end = bytes.length;
  // Back over continuation bytes to the lead byte of the last character, then drop it if it is incomplete.
  let start = end;
  while (start > 0 && start > end - 4 && ((bytes[start - 1] as number) & 0xc0) === 0x80) start--;
  if (start > 0) {
    const lead = bytes[start - 1] as number;
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (start - 1 + length > end) end = start - 1;
  }
  return bytes.subarray(0, end);
}
