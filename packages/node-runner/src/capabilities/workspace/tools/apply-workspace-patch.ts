import { defineTool, type Tool } from "@castellan/harness";
import { assertGuidanceSeen } from "../instructions/guidance-check.js";
import { refusalsAsResults } from "./results.js";
import type { WorkspaceToolsContext } from "./workspace-context.js";

/** The input of `apply_workspace_patch`. */
export interface ApplyWorkspacePatchInput {
  /** A `*** Begin Patch` ... `*** End Patch` patch, as Codex-trained models write it. */
  readonly patch: string;
}

/**
 * `apply_workspace_patch`: adds, updates (optionally moving) and deletes files in one
 * `*** Begin Patch` patch. Before permission, its syntax, size, file count, paths and Delete
 * targets are checked and the guidance governing every path must have been seen; the
 * admission lists each file (`{ path, operation, to?, overwrites? }`). After approval the
 * files commit one by one in order, each checked again at its turn, with no rollback: a later
 * failure keeps the committed files and says so with their receipts. Not read-only.
 */
export function applyWorkspacePatchTool(context: WorkspaceToolsContext): Tool<ApplyWorkspacePatchInput> {
  const { limits, requireExistingParents } = context;
  return defineTool<ApplyWorkspacePatchInput>({
    name: "apply_workspace_patch",
    description: [
      "Apply a patch to workspace files. The patch is:",
      "*** Begin Patch",
      "*** Add File: path  (then each line of the new file prefixed with +)",
      "*** Delete File: path",
      "*** Update File: path  (optionally *** Move to: new/path, then chunks: an @@ line, optionally @@ <a line to find first>, then lines prefixed with space (context), - (remove) or + (add); *** End of File anchors a chunk at the end)",
      "*** End Patch",
      "Paths are relative to the workspace root; each path may appear once. Files are applied in order; if one fails, the earlier ones stay applied and are listed.",
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: { patch: { type: "string", description: "The whole patch, from *** Begin Patch to *** End Patch." } },
      required: ["patch"],
      additionalProperties: false,
    },
    async admit(input, ctx) {
      const { root, guidance } = context.bind(ctx);
      // The patch engine loads on the first patch, not with the package.
      const { planPatch } = await import("./patch-plan.js");
      const plan = await planPatch(root, input.patch, limits, requireExistingParents);
      await assertGuidanceSeen(guidance, ctx, plan.directories);
      return { admission: { files: plan.files.map((file) => ({ ...file })) } };
    },
    describeCall: (input, admission) => {
      const files = ((admission as { files?: { path?: unknown }[] } | undefined)?.files ?? []).map((file) =>
        String(file.path),
      );
      return {
        title: files.length === 0 ? "Apply a patch" : `Apply a patch to ${files.join(", ")}`,
        summary: input.patch,
      };
    },
    execute: (input, ctx) =>
      refusalsAsResults(async () => {
        // Approval may have waited: everything admission checked is checked again now.
        const { root } = context.bind(ctx);
        const [{ planPatch }, { commitPatch }] = await Promise.all([
          import("./patch-plan.js"),
          import("./patch-commit.js"),
        ]);
        const plan = await planPatch(root, input.patch, limits, requireExistingParents);
        return await commitPatch(root, plan.operations, limits, requireExistingParents, ctx.signal);
      }),
  });
}
