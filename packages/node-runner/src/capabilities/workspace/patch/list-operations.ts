import type { ParsedPatch, PatchOperationSummary } from "./types.js";

/**
 * What each operation of `patch` touches, in patch order: `{ path, operation }` for an add,
 * update or delete, `{ path, operation: "move", to }` for an Update with `*** Move to:` (path is
 * the source). Paths are as the patch wrote them; a path may repeat when the patch names it twice.
 */
export function listPatchOperations(patch: ParsedPatch): PatchOperationSummary[] {
  return patch.operations.map((operation) => {
    if (operation.type === "update" && operation.moveTo !== undefined) {
      return { path: operation.path, operation: "move", to: operation.moveTo };
    }
    return { path: operation.path, operation: operation.type };
  });
}
