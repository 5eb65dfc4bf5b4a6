import { quote, refusal } from "../../../kernel/workspace-path/refusal.js";
import { resolveEntry } from "../../../platform/paths/entry.js";
import { absolutePath, type WorkspaceRoot } from "../../../platform/paths/root.js";

/** What a search starts from: the directory to walk or the one file to search. */
export interface SearchStart {
  readonly kind: "directory" | "file";
  readonly segments: readonly string[];
  readonly path: string;
  readonly absolute: string;
}

/**
 * Resolves the search's `path` without following links: a directory or a regular file
 * inside the root. Refused: a link on the way (`path_through_symlink`), the path itself a
 * link (`path_is_symlink`), a FIFO, socket or device (`not_regular_file`), nothing there
 * (`path_not_found`), and what the path layer refuses besides.
 */
export async function resolveSearchStart(
  root: WorkspaceRoot,
  path: string,
  segments: readonly string[],
): Promise<SearchStart> {
  const entry = await resolveEntry(root, path);
  const absolute = absolutePath(root, segments);
  switch (entry.kind) {
    case "directory":
    case "file":
      return { kind: entry.kind, segments, path, absolute };
    case "symlink":
      throw refusal(
        "path_is_symlink",
        `${quote(path)} is a symbolic link${entry.linkTarget === undefined ? "" : ` (to ${quote(entry.linkTarget)})`}; search does not follow links. Search the directory or file it points to by its own path, if that is inside the workspace.`,
      );
    default:
      throw refusal("not_regular_file", `${quote(path)} is not a regular file or directory; it cannot be searched.`);
  }
}
