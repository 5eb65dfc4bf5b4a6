import { join } from "node:path";
import { resolveDirectory } from "../../../platform/paths/directory.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";

/** A command's working directory: its workspace path and the absolute path it is spawned in. */
export interface CommandWorkdir {
  /** The workspace path; `.` for the working directory itself. */
  readonly path: string;
  readonly absolute: string;
}

/**
 * Resolves `workdir` (default `.`) beneath the working directory by the workspace path rules:
 * a relative POSIX path, no link followed on the way. A refusal is the path layer's
 * `ToolInputError` (`path_invalid`, `path_not_found`, `not_a_directory`, ...). It only picks
 * the directory a command starts in: nothing is confined by it.
 */
export async function resolveWorkdir(root: WorkspaceRoot, workdir: string | undefined): Promise<CommandWorkdir> {
  const path = workdir ?? ".";
  const directory = await resolveDirectory(root, path);
  return {
    path: directory.path,
    absolute: directory.path === "." ? root.realPath : join(root.realPath, directory.path),
  };
}
