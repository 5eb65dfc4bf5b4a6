// The chunks of one `*** Update File:` section. A chunk is one or more `@@` lines (the first
// chunk may have none), then lines prefixed ` ` (context), `-` (removed) or `+` (added), and
// optionally `*** End of File`.
//
// A line that starts with a space, `-` or `+` is always a chunk line, even when what follows
// looks like a marker: a file that itself holds patch text (` *** End Patch` as context) stays
// patchable, as in Codex. Markers inside an Update are recognised only when not so prefixed.
//
// Blank lines: an empty (or whitespace-only) line inside a chunk is read as an empty context
// line, as Codex reads it: the model dropped the space prefix of an empty line. Blank lines
// that end a chunk, followed by `@@`, another section or `*** End Patch`, separate chunks and
// are dropped; before `*** End of File` they stay context lines.
import type { PatchBody } from "./envelope.js";
import { invalidPatch, isBlank, skipBlank } from "./envelope.js";
import { quoteLine } from "./quote.js";
import type { ChunkLine, PatchChunk } from "./types.js";

/** Marks a chunk whose lines must end the file. */
export const endOfFileMarker = "*** End of File";

const lineTypes: Readonly<Record<string, ChunkLine["type"]>> = { " ": "context", "-": "removed", "+": "added" };

/** A unified-diff hunk header (`@@ -12,7 +12,8 @@ section`), read after its leading `@@`. */
const unifiedHunkHeader = /^ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@(?: (.*))?$/s;

/** The chunks of an Update section whose body starts at `index`, and the index after them. */
export function parseUpdateChunks(
  body: PatchBody,
  index: number,
): { readonly chunks: PatchChunk[]; readonly next: number } {
  const { lines, end } = body;
  const chunks: PatchChunk[] = [];
  let next = index;
  for (;;) {
    next = skipBlank(lines, next, end);
    if (next >= end) break;
    const line = lines[next]!;
    if (lineType(line) !== undefined) {
      // The chunk loop below takes every prefixed line, so one is left over only after `*** End of File`.
      if (chunks.length > 0) {
        throw invalidPatch(
          `line ${next + 1}: after \`${endOfFileMarker}\`, start the next chunk with \`@@\` (or \`@@ <a line to find first>\`).`,
        );
      }
    } else if (!isAnchorLine(line)) {
      const trimmed = line.trim();
      if (trimmed === endOfFileMarker) {
        throw invalidPatch(`line ${next + 1}: \`${endOfFileMarker}\` must follow the lines of a chunk.`);
      }
      // Another section, or a header parse.ts refuses with its own message.
      if (trimmed.startsWith("***")) break;
      throw notChunkLine(next, line);
    }
    const chunk = parseChunk(body, next);
    chunks.push(chunk.chunk);
    next = chunk.next;
  }
  return { chunks, next };
}

function parseChunk(body: PatchBody, start: number): { chunk: PatchChunk; next: number } {
  const { lines, end } = body;
  const anchors: string[] = [];
  let next = start;
  // Several `@@` lines narrow step by step (`@@ class A`, then `@@ def run`), as Codex's prompt teaches.
  while (next < end && isAnchorLine(lines[next]!)) {
    const anchor = anchorText(lines[next]!, next);
    if (anchor !== undefined) anchors.push(anchor);
    next++;
  }
  const chunkLines: ChunkLine[] = [];
  let endOfFile = false;
  while (next < end) {
    const line = lines[next]!;
    const type = lineType(line);
    if (type !== undefined) {
      chunkLines.push({ type, text: line.slice(1) });
      next++;
    } else if (isBlank(line)) {
      const after = skipBlank(lines, next, end);
      const following = lines[after];
      const inside =
        after < end &&
        following !== undefined &&
        (lineType(following) !== undefined || following.trim() === endOfFileMarker);
      if (!inside) break;
      for (; next < after; next++) {
        // A space-prefixed blank line keeps what follows its prefix; one without a prefix is empty.
        const blank = lines[next]!;
        chunkLines.push({ type: "context", text: hasChunkPrefix(blank) ? blank.slice(1) : "" });
      }
    } else {
      if (line.trim() === endOfFileMarker) {
        endOfFile = true;
        next++;
      }
      break;
    }
  }
  if (chunkLines.length === 0) {
    throw invalidPatch(
      `line ${start + 1}: this chunk has no lines. After \`@@\`, give the chunk's lines: a space for unchanged context, \`-\` for removed, \`+\` for added.`,
    );
  }
  return { chunk: { anchors, lines: chunkLines, endOfFile, line: start + 1 }, next };
}

/** True when `line` starts with a chunk line's prefix: a space, `-` or `+`. */
export function hasChunkPrefix(line: string): boolean {
  return lineType(line) !== undefined;
}

/** The chunk line type of `line` by its first character, or undefined when it has no chunk prefix. */
function lineType(line: string): ChunkLine["type"] | undefined {
  return lineTypes[line.charAt(0)];
}

function isAnchorLine(line: string): boolean {
  return lineType(line) === undefined && line.trimStart().startsWith("@@");
}

/**
 * The line to find that an `@@` line names, or undefined for a bare `@@`. The text after `@@ `
 * is kept as written (matching tolerates whitespace). A unified-diff header's line numbers are
 * ignored and its section text, when present, is the anchor.
 */
function anchorText(line: string, index: number): string | undefined {
  const rest = line.trimStart().slice(2);
  if (rest.trim() === "") return undefined;
  const unified = unifiedHunkHeader.exec(rest.trimEnd());
  if (unified) {
    const section = unified[1];
    return section === undefined || section.trim() === "" ? undefined : section;
  }
  if (rest.startsWith(" ") || rest.startsWith("\t")) return rest.slice(1);
  throw invalidPatch(
    `line ${index + 1}: ${quoteLine(line)} is not a chunk header. Write \`@@\` alone, or \`@@ \` followed by a line of the file to find first.`,
  );
}

function notChunkLine(index: number, line: string) {
  return invalidPatch(
    `line ${index + 1}: ${quoteLine(line)} is not a chunk line. In an Update File section, start each line with a space (unchanged context), \`-\` (removed) or \`+\` (added), and each chunk with \`@@\`.`,
  );
}
