import { errorMessage, ToolInputError, type ToolResult } from "@castellan/harness";
import { deleteFile } from "../../../platform/paths/delete-file.js";
import { readWholeFile } from "../../../platform/paths/open-file.js";
import { resolveForWrite } from "../../../platform/paths/resolve-write.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import { writeFileAtomically } from "../../../platform/paths/write-file.js";
import { applyChunks } from "../patch/apply-chunks.js";
import type { PatchOperation } from "../patch/types.js";
import type { WorkspaceLimits } from "./limits.js";
import { resolveDestination } from "./patch-plan.js";

/** What a committed file of a patch became. */
export type PatchReceipt =
  | { readonly path: string; readonly operation: "added"; readonly overwritten?: true }
  | { readonly path: string; readonly operation: "updated"; readonly edits: number }
  | {
      readonly path: string;
      readonly operation: "moved";
      readonly from: string;
      readonly edits: number;
      readonly overwritten?: true;
    }
  | { readonly path: string; readonly operation: "deleted" };

/** Longest diagnostic text after a partial patch; the receipts before it are never cut. */
const maxDiagnosticBytes = 4_096;

/**
 * Commits a patch's files one by one, in order, with no rollback: each file is checked at its
 * turn (an Update's source must exist and its context still match) and written atomically.
 * `signal` is checked between files, never inside one. All committed: the receipts. A later
 * failure or an abort: an error result whose first block is the committed files' receipts and
 * whose second says which file failed and why, which were not attempted, and not to apply the
 * committed ones again.
 */
export async function commitPatch(
  root: WorkspaceRoot,
  operations: readonly PatchOperation[],
  limits: WorkspaceLimits,
  requireExistingParents: boolean,
  signal: AbortSignal,
): Promise<ToolResult> {
  const receipts: PatchReceipt[] = [];
  for (const [index, operation] of operations.entries()) {
    if (signal.aborted) {
      const rest = operations.slice(index);
      return partial(receipts, rest, `The run was aborted before ${labelOf(operation)}, which was not written.`);
    }
    try {
      receipts.push(await commitOne(root, operation, limits, requireExistingParents));
    } catch (error) {
      const reason = error instanceof ToolInputError ? error.resultText : errorMessage(error);
      if (receipts.length === 0) {
        // Nothing committed: the result starts with the refusal's code, like any other refusal.
        const text = diagnostic(`${reason}\n(${labelOf(operation)})`, operations.slice(index + 1), false);
        return { content: [{ type: "text", text }], isError: true };
      }
      return partial(receipts, operations.slice(index), `${labelOf(operation)} failed: ${reason}`);
    }
  }
  return { content: [{ type: "text", text: JSON.stringify(receipts) }], isError: false };
}

async function commitOne(
  root: WorkspaceRoot,
  operation: PatchOperation,
  limits: WorkspaceLimits,
  requireExistingParents: boolean,
): Promise<PatchReceipt> {
  if (operation.type === "delete") {
    await deleteFile(await resolveForWrite(root, operation.path));
    return { path: operation.path, operation: "deleted" };
  }
  if (operation.type === "add") {
    const target = await resolveDestination(root, operation.path, requireExistingParents);
    await writeFileAtomically(target, operation.contents);
    return { path: operation.path, operation: "added", ...(target.exists ? { overwritten: true as const } : {}) };
  }
  const source = await resolveForWrite(root, operation.path);
  const bytes = await readWholeFile(source, limits.maxFileBytes);
  let original: string;
  try {
    original = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ToolInputError(
      "file_not_utf8",
      `${JSON.stringify(operation.path)} is not valid UTF-8 text, so a patch cannot match its lines. Use edit_workspace_file with the exact bytes, or a command.`,
    );
  }
  const { text, edits } = applyChunks(original, operation.chunks, { path: operation.path });
  if (operation.moveTo === undefined) {
    await writeFileAtomically(source, text);
    return { path: operation.path, operation: "updated", edits };
  }
  const target = await resolveDestination(root, operation.moveTo, requireExistingParents);
  await writeFileAtomically(target, text);
  await deleteFile(await resolveForWrite(root, operation.path));
  return {
    path: operation.moveTo,
    operation: "moved",
    from: operation.path,
    edits,
    ...(target.exists ? { overwritten: true as const } : {}),
  };
}

function partial(receipts: readonly PatchReceipt[], rest: readonly PatchOperation[], failure: string): ToolResult {
  return {
    content: [
      { type: "text", text: JSON.stringify(receipts) },
      { type: "text", text: diagnostic(`The patch stopped part way. ${failure}`, rest.slice(1), receipts.length > 0) },
    ],
    isError: true,
  };
}

/**
 * The diagnostic after a failure: why, the files not attempted, and what was committed. It is
 * at most {@link maxDiagnosticBytes}: the reason and the list are cut (each at a character
 * boundary, saying how much was left out) so the closing line always fits.
 */
function diagnostic(failure: string, notAttempted: readonly PatchOperation[], committed: boolean): string {
  const closing = committed
    ? "The files in the receipts above were committed: do not apply them again. Send a new patch for the rest only."
    : "Nothing was written.";
  const list = notAttempted.length > 0 ? `Not attempted: ${notAttempted.map(labelOf).join("; ")}.` : "";
  const room = maxDiagnosticBytes - Buffer.byteLength(closing) - 96;
  const listRoom = Math.min(Buffer.byteLength(list), Math.floor(room / 2));
  const [reason, reasonCut] = cutTo(failure, room - listRoom);
  const [shownList, listCut] = cutTo(list, room - Buffer.byteLength(reason));
  const dropped = reasonCut + listCut;
  return [reason, shownList, dropped > 0 ? `[diagnostic cut: ${dropped} more bytes not shown]` : "", closing]
    .filter((line) => line !== "")
    .join("\n");
}

/** `text` cut to at most `bytes` bytes of UTF-8 at a character boundary, and how many bytes were left out. */
function cutTo(text: string, bytes: number): [string, number] {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= bytes) return [text, 0];
  let cut = new TextDecoder().decode(encoded.subarray(0, Math.max(0, bytes)));
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return [cut, encoded.length - Buffer.byteLength(cut)];
}

function labelOf(operation: PatchOperation): string {
  if (operation.type === "update" && operation.moveTo !== undefined) {
    return `move ${JSON.stringify(operation.path)} to ${JSON.stringify(operation.moveTo)}`;
  }
  return `${operation.type} ${JSON.stringify(operation.path)}`;
}
