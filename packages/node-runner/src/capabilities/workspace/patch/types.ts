// The shape of a parsed `*** Begin Patch` patch (the format OpenAI Codex's apply_patch reads).
// Plain data: parse.ts makes it, apply-chunks.ts and the workspace patch tool read it. Paths are
// the raw strings the patch wrote; checking them is the tool's job.

/** A parsed patch: one or more operations, in the order the patch gives them. */
export interface ParsedPatch {
  /** At least one operation, in patch order (the order the tool commits them in). */
  readonly operations: readonly PatchOperation[];
}

/** One `*** Add File:`, `*** Delete File:` or `*** Update File:` section. */
export type PatchOperation = AddFileOperation | DeleteFileOperation | UpdateFileOperation;

/** `*** Add File: path`: create the file, or replace it whole if it exists. */
export interface AddFileOperation {
  readonly type: "add";
  /** The path as written after the header, trimmed; never empty, otherwise unchecked. */
  readonly path: string;
  /**
   * The file's whole text: each `+` line's text followed by LF (so it ends with LF unless empty).
   * An Add File section with no lines gives `""`, an empty file.
   */
  readonly contents: string;
  /** The 1-based line of the header in the patch text, for messages. */
  readonly line: number;
}

/** `*** Delete File: path`: remove an existing file. The section has no body. */
export interface DeleteFileOperation {
  readonly type: "delete";
  /** The path as written after the header, trimmed; never empty, otherwise unchecked. */
  readonly path: string;
  /** The 1-based line of the header in the patch text, for messages. */
  readonly line: number;
}

/** `*** Update File: path`, optionally `*** Move to: path`, then chunks: edit an existing file. */
export interface UpdateFileOperation {
  readonly type: "update";
  /** The file to edit, as written after the header, trimmed; never empty, otherwise unchecked. */
  readonly path: string;
  /**
   * Where the edited text goes (the source is then removed), from `*** Move to:`; undefined when
   * the file stays where it is. Trimmed, never empty, otherwise unchecked.
   */
  readonly moveTo: string | undefined;
  /** At least one chunk, in patch order; applyChunks expects them in file order. */
  readonly chunks: readonly PatchChunk[];
  /** The 1-based line of the header in the patch text, for messages. */
  readonly line: number;
}

/**
 * One chunk of an Update: where to look (`@@` lines), then the lines to find and what replaces
 * them. The lines to find are the context and removed lines, in order; the replacement is the
 * context and added lines, in order.
 */
export interface PatchChunk {
  /**
   * The text of each `@@ <line>` heading the chunk (without the `@@ `), in order: each is a line
   * to find before the next, and the chunk's own lines are looked for below the last. Empty for a
   * bare `@@` or a first chunk written without one.
   */
  readonly anchors: readonly string[];
  /** The chunk's lines, at least one, in patch order. */
  readonly lines: readonly ChunkLine[];
  /** True when the chunk was followed by `*** End of File`: its lines must end the file. */
  readonly endOfFile: boolean;
  /** The 1-based line in the patch text where the chunk starts (its first `@@`, or its first line). */
  readonly line: number;
}

/** One line of a chunk, without its one-character prefix. */
export interface ChunkLine {
  /** `context` (prefix ` `, or a bare empty line), `removed` (prefix `-`) or `added` (prefix `+`). */
  readonly type: "context" | "removed" | "added";
  /** The line's text after the prefix, without a line ending. */
  readonly text: string;
}

/** One entry of {@link listPatchOperations}: what an operation touches, for the tool's admission. */
export interface PatchOperationSummary {
  /** The path the operation reads or writes first: the Add's, Delete's or Update's path (a move's source). */
  readonly path: string;
  /** `move` is an Update with `*** Move to:`; its destination is in `to`. */
  readonly operation: "add" | "update" | "delete" | "move";
  /** A move's destination; absent for the other operations. */
  readonly to?: string;
}
