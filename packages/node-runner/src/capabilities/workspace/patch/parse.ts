// The grammar of a `*** Begin Patch` patch, as OpenAI Codex's apply_patch reads it:
//
//   *** Begin Patch
//   *** Add File: <path>        then lines `+<text>`, each a line of the new file
//   *** Delete File: <path>     no body
//   *** Update File: <path>     then optionally `*** Move to: <path>`, then chunks (parse-chunks.ts)
//   *** End Patch
//
// Leniencies, as in Codex: markers and headers may be padded with whitespace, a heredoc wrapper
// is unwrapped (envelope.ts), a patch sent with CRLF line breaks reads as with LF. Beyond
// Codex: blank lines between sections are skipped, and a blank line between `+` lines of an Add
// File is an empty line of the file (the model dropped its `+`).
//
// Every refusal is a `patch_invalid` ToolInputError naming the line, and it refuses the whole
// patch: nothing is applied from a patch that does not parse.
import type { PatchBody } from "./envelope.js";
import { beginPatchMarker, endPatchMarker, invalidPatch, isBlank, patchBody, skipBlank } from "./envelope.js";
import { endOfFileMarker, hasChunkPrefix, parseUpdateChunks } from "./parse-chunks.js";
import { quoteLine } from "./quote.js";
import type { ParsedPatch, PatchOperation } from "./types.js";

/** Starts an Add File section. */
export const addFileHeader = "*** Add File:";
/** Starts a Delete File section. */
export const deleteFileHeader = "*** Delete File:";
/** Starts an Update File section. */
export const updateFileHeader = "*** Update File:";
/** Follows an Update File header to move the edited file. */
export const moveToHeader = "*** Move to:";

const headers = `\`${addFileHeader} <path>\`, \`${updateFileHeader} <path>\` or \`${deleteFileHeader} <path>\``;

/**
 * Parses the patch text a model sent (the tool's `patch` input) into its operations. Pure: it
 * reads no file and checks no path (paths are returned as written, trimmed). Linear in the
 * text's length.
 *
 * Throws a ToolInputError with code `patch_invalid`, whose message names the 1-based line and
 * says what to send instead, when: the text is empty or lacks its `*** Begin Patch` /
 * `*** End Patch` lines; there is no operation; a header is unknown (`*** Frobnicate File:`) or
 * names no path; an Update has no chunk, or a chunk no lines; a line fits nowhere.
 */
export function parsePatch(text: string): ParsedPatch {
  const body = patchBody(text);
  const operations: PatchOperation[] = [];
  let index = body.start;
  for (;;) {
    index = skipBlank(body.lines, index, body.end);
    if (index >= body.end) break;
    const parsed = parseOperation(body, index, operations.at(-1));
    operations.push(parsed.operation);
    index = parsed.next;
  }
  if (operations.length === 0) {
    throw invalidPatch(
      `line ${body.end + 1}: the patch has no operations between \`${beginPatchMarker}\` (line ${body.start}) and \`${endPatchMarker}\`. Add at least one ${headers} section.`,
    );
  }
  return { operations };
}

function parseOperation(
  body: PatchBody,
  index: number,
  previous: PatchOperation | undefined,
): { operation: PatchOperation; next: number } {
  const { lines, end } = body;
  const line = lines[index]!;
  const trimmed = line.trim();
  const number = index + 1;
  const addPath = headerPath(trimmed, addFileHeader, number);
  if (addPath !== undefined) {
    const { contents, next } = parseAddedLines(body, index + 1);
    return { operation: { type: "add", path: addPath, contents, line: number }, next };
  }
  const deletePath = headerPath(trimmed, deleteFileHeader, number);
  if (deletePath !== undefined) {
    return { operation: { type: "delete", path: deletePath, line: number }, next: index + 1 };
  }
  const updatePath = headerPath(trimmed, updateFileHeader, number);
  if (updatePath !== undefined) {
    let next = skipBlank(lines, index + 1, end);
    let moveTo: string | undefined;
    const following = lines[next];
    if (next < end && following !== undefined && !hasChunkPrefix(following)) {
      moveTo = headerPath(following.trim(), moveToHeader, next + 1);
      if (moveTo !== undefined) next++;
    }
    const { chunks, next: after } = parseUpdateChunks(body, next);
    if (chunks.length === 0) {
      throw invalidPatch(
        `line ${number}: \`${updateFileHeader} ${updatePath}\` has no chunks. Add at least one chunk (\`@@\`, then lines starting with a space, \`-\` or \`+\`), or use \`${addFileHeader}\` to replace the whole file.`,
      );
    }
    return { operation: { type: "update", path: updatePath, moveTo, chunks, line: number }, next: after };
  }
  throw misplacedLine(trimmed, line, number, previous);
}

/** The path after `header` in a trimmed header line, or undefined when the line is another header. */
function headerPath(trimmed: string, header: string, number: number): string | undefined {
  if (!trimmed.startsWith(header)) return undefined;
  const path = trimmed.slice(header.length).trim();
  if (path === "") throw invalidPatch(`line ${number}: \`${header}\` names no file. Write \`${header} <path>\`.`);
  return path;
}

/** The text of an Add File section whose `+` lines start at `index`, and the index after them. */
function parseAddedLines(body: PatchBody, index: number): { contents: string; next: number } {
  const { lines, end } = body;
  const added: string[] = [];
  let next = index;
  while (next < end) {
    const line = lines[next]!;
    if (line.startsWith("+")) {
      added.push(line.slice(1));
      next++;
      continue;
    }
    if (!isBlank(line)) break;
    const after = skipBlank(lines, next, end);
    // Blank lines before another `+` line are lines of the file; before anything else they separate sections.
    if (after >= end || !lines[after]!.startsWith("+")) break;
    for (; next < after; next++) added.push("");
  }
  return { contents: added.map((text) => `${text}\n`).join(""), next };
}

/** The refusal for a line where an operation header should be. */
function misplacedLine(trimmed: string, line: string, number: number, previous: PatchOperation | undefined) {
  if (trimmed === beginPatchMarker) {
    return invalidPatch(
      `line ${number}: a second \`${beginPatchMarker}\`. Send one patch per call, with its operations between one \`${beginPatchMarker}\` and one \`${endPatchMarker}\`.`,
    );
  }
  if (trimmed === endPatchMarker) {
    return invalidPatch(
      `line ${number}: \`${endPatchMarker}\` before the patch's last line. A patch has one \`${endPatchMarker}\`, on its last line; put every operation before it.`,
    );
  }
  if (trimmed.startsWith(moveToHeader)) {
    return invalidPatch(`line ${number}: \`${moveToHeader}\` must come right after its \`${updateFileHeader}\` line.`);
  }
  if (trimmed === endOfFileMarker) {
    return invalidPatch(`line ${number}: \`${endOfFileMarker}\` must follow the lines of an Update chunk.`);
  }
  if (trimmed.startsWith("***")) {
    return invalidPatch(
      `line ${number}: ${quoteLine(trimmed)} is not a known header, so the whole patch was refused. Each operation starts with ${headers}.`,
    );
  }
  const hint =
    previous?.type === "add"
      ? ` Every line of an \`${addFileHeader}\` section starts with \`+\`.`
      : previous?.type === "delete"
        ? ` A \`${deleteFileHeader}\` section has no lines after its header.`
        : "";
  return invalidPatch(`line ${number}: expected an operation header (${headers}), found ${quoteLine(line)}.${hint}`);
}
