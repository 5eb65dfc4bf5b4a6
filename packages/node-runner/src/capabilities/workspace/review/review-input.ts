import { createHash } from "node:crypto";
import { ToolInputError } from "@castellan/harness";
import { readWholeFile } from "../../../platform/paths/open-file.js";
import { resolveForRead } from "../../../platform/paths/resolve-read.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";

/** Bytes of `task`, at most. */
export const maxTaskBytes = 8_192;
/** Files one review reads, at most. */
export const maxReviewFiles = 12;
/** Bytes of all reviewed files together, at most. */
export const maxReviewBytes = 131_072;

/** A file given to the reviewer. */
export interface ReviewedFile {
  readonly path: string;
  readonly text: string;
  readonly bytes: number;
  readonly sha256: string;
}

const encoder = new TextEncoder();

/**
 * Checks a review's input and reads its files, before any model request: `task` non-empty
 * and at most {@link maxTaskBytes}; 1 to {@link maxReviewFiles} distinct paths of regular
 * UTF-8 files inside the root, {@link maxReviewBytes} in all. Refusals are ToolInputErrors.
 */
export async function readReviewInput(
  root: WorkspaceRoot,
  task: string,
  paths: readonly string[],
): Promise<readonly ReviewedFile[]> {
  if (task.trim() === "")
    throw new ToolInputError("input_invalid", "task is empty; say what the review should look for.");
  const taskBytes = encoder.encode(task).length;
  if (taskBytes > maxTaskBytes) {
    throw new ToolInputError(
      "input_too_large",
      `task is ${taskBytes} bytes, over the limit of ${maxTaskBytes}. Say it shorter.`,
    );
  }
  if (paths.length === 0 || paths.length > maxReviewFiles) {
    throw new ToolInputError(
      "input_invalid",
      `Give 1 to ${maxReviewFiles} paths to review; ${paths.length} were given.`,
    );
  }
  if (new Set(paths).size !== paths.length) {
    throw new ToolInputError("path_duplicated", "A path is listed more than once; list each file once.");
  }
  const files: ReviewedFile[] = [];
  let total = 0;
  for (const path of paths) {
    const file = await resolveForRead(root, path);
    if (total + file.size > maxReviewBytes) throw tooMuch(total + file.size);
    const bytes = await readWholeFile(file, maxReviewBytes - total);
    total += bytes.length;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new ToolInputError("file_not_utf8", `${JSON.stringify(path)} is not UTF-8 text; review only text files.`);
    }
    files.push({ path, text, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
  }
  return files;
}

function tooMuch(bytes: number): ToolInputError {
  return new ToolInputError(
    "input_too_large",
    `The files are at least ${bytes} bytes together, over the review limit of ${maxReviewBytes}. Review fewer or smaller files.`,
  );
}
