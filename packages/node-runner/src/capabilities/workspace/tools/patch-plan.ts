import { isToolInputError, ToolInputError } from "@castellan/harness";
import { checkWorkspacePath } from "../../../kernel/workspace-path/check-path.js";
import { resolveForWrite, type WriteTarget } from "../../../platform/paths/resolve-write.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import { parsePatch } from "../patch/parse.js";
import type { PatchOperation } from "../patch/types.js";
import type { WorkspaceLimits } from "./limits.js";
import { directoryOf } from "./workspace-context.js";

/** One file of a patch's admission: what it does to which path. */
export interface PatchAdmissionFile {
  readonly path: string;
  readonly operation: "add" | "update" | "delete" | "move";
  /** A move's destination. */
  readonly to?: string;
  /** True when an Add or a Move replaces a file that exists. */
  readonly overwrites?: true;
}

/** A patch checked before permission: its operations, its admission, and the directories whose guidance governs it. */
export interface PatchPlan {
  readonly operations: readonly PatchOperation[];
  readonly files: readonly PatchAdmissionFile[];
  readonly directories: readonly (readonly string[])[];
}

const encoder = new TextEncoder();

/**
 * Checks everything about a patch that can be known before any file is written: its size
 * (`input_too_large`), its syntax (`patch_invalid`), its number of files (`too_many_files`,
 * so every receipt is known to fit), every path, Move targets included (`path_invalid` and
 * the rest of the path rules), each path at most once across sources and targets
 * (`path_duplicated`), Delete targets existing regular files, and Add or Move destinations
 * that are not directories, links or special files (an existing file is overwritten). An
 * Update's source is checked at its turn, since an earlier file of the patch may be the one
 * that creates it. Reads nothing but metadata, writes nothing.
 */
export async function planPatch(
  root: WorkspaceRoot,
  patch: string,
  limits: WorkspaceLimits,
  requireExistingParents: boolean,
): Promise<PatchPlan> {
  const bytes = encoder.encode(patch).length;
  if (bytes > limits.maxInputBytes) {
    throw new ToolInputError(
      "input_too_large",
      `The patch is ${bytes} bytes, over the limit of ${limits.maxInputBytes}. Split it into smaller patches.`,
    );
  }
  const { operations } = parsePatch(patch);
  if (operations.length > limits.maxPatchFiles) {
    throw new ToolInputError(
      "too_many_files",
      `The patch changes ${operations.length} files, over the limit of ${limits.maxPatchFiles} per patch. Split it into patches of at most ${limits.maxPatchFiles} files.`,
    );
  }
  const seen = new Set<string>();
  const claim = (path: string) => {
    checkWorkspacePath(path);
    if (seen.has(path)) {
      throw new ToolInputError(
        "path_duplicated",
        `${JSON.stringify(path)} appears more than once in the patch (each path may be a source or a target once). Put all changes to a file in one section.`,
      );
    }
    seen.add(path);
  };
  for (const operation of operations) {
    claim(operation.path);
    if (operation.type === "update" && operation.moveTo !== undefined) claim(operation.moveTo);
  }
  const files: PatchAdmissionFile[] = [];
  const directories: string[][] = [];
  for (const operation of operations) {
    directories.push(directoryOf(operation.path));
    if (operation.type === "delete") {
      await resolveForWrite(root, operation.path);
      files.push({ path: operation.path, operation: "delete" });
    } else if (operation.type === "add") {
      const target = await resolveDestination(root, operation.path, requireExistingParents);
      files.push({ path: operation.path, operation: "add", ...(target.exists ? { overwrites: true as const } : {}) });
    } else if (operation.moveTo !== undefined) {
      directories.push(directoryOf(operation.moveTo));
      const target = await resolveDestination(root, operation.moveTo, requireExistingParents);
      files.push({
        path: operation.path,
        operation: "move",
        to: operation.moveTo,
        ...(target.exists ? { overwrites: true as const } : {}),
      });
    } else {
      files.push({ path: operation.path, operation: "update" });
    }
  }
  return { operations, files, directories };
}

/**
 * Resolves where an Add or a Move writes: a new file (its missing parents created, or
 * `parent_missing` with `requireExistingParents`), or an existing regular file it replaces. A
 * directory, link or special file there is refused with that path's code.
 */
export async function resolveDestination(
  root: WorkspaceRoot,
  path: string,
  requireExistingParents: boolean,
): Promise<WriteTarget> {
  try {
    return await resolveForWrite(root, path, { create: true, requireExistingParents });
  } catch (error) {
    if (!isToolInputError(error, "path_exists")) throw error;
    return await resolveForWrite(root, path);
  }
}
