import type { Tool } from "@castellan/harness";
import { trackerOf } from "../../src/workspace/instructions/guidance-check.js";
import {
  createWorkspaceInstructionsPlugin,
  type WorkspaceInstructionsPlugin,
  type WorkspaceInstructionsReceipt,
} from "../../src/workspace/instructions/instructions-plugin.js";
import type { WorkspaceOperations } from "../../src/workspace/paths/operations.js";
import { bindWorkspaceRootSync } from "../../src/workspace/paths/root.js";
import { applyWorkspacePatchTool } from "../../src/workspace/tools/apply-workspace-patch.js";
import { editWorkspaceFileTool } from "../../src/workspace/tools/edit-workspace-file.js";
import { resolveWorkspaceLimits, type WorkspaceLimits } from "../../src/workspace/tools/limits.js";
import { readWorkspaceFileTool } from "../../src/workspace/tools/read-workspace-file.js";

/**
 * The five workspace tools for `rootUrl`, by name, with an instructions plugin applied to a
 * stand-in host (so the tools accept calls) and the receipts it recorded.
 */
export function workspaceToolsFor(
  rootUrl: URL,
  options: {
    readonly limits?: Partial<WorkspaceLimits>;
    readonly requireExistingParents?: boolean;
    readonly operations?: WorkspaceOperations;
  } = {},
): { readonly tools: Readonly<Record<string, Tool>>; readonly receipts: WorkspaceInstructionsReceipt[] } {
  const receipts: WorkspaceInstructionsReceipt[] = [];
  const instructions = createWorkspaceInstructionsPlugin({
    rootDirectory: rootUrl,
    record: (receipt) => void receipts.push(receipt),
  });
  instructions.apply({ hooks: { beforeModel: () => undefined } } as never);
  const context = {
    root: bindWorkspaceRootSync(rootUrl, options.operations),
    guidance: trackerOf(instructions, "test"),
    limits: resolveWorkspaceLimits(options.limits, "test"),
    requireExistingParents: options.requireExistingParents ?? false,
  };
  const list = [readWorkspaceFileTool(context), editWorkspaceFileTool(context), applyWorkspacePatchTool(context)];
  return { tools: Object.fromEntries(list.map((tool) => [tool.name, tool])), receipts };
}

/** The workspace tools for `rootUrl` bound to an `instructions` plugin the caller registers in its Runner. */
export function toolsWith(rootUrl: URL, instructions: WorkspaceInstructionsPlugin): readonly Tool[] {
  const context = {
    root: bindWorkspaceRootSync(rootUrl),
    guidance: trackerOf(instructions, "test"),
    limits: resolveWorkspaceLimits(undefined, "test"),
    requireExistingParents: false,
  };
  return [readWorkspaceFileTool(context), editWorkspaceFileTool(context), applyWorkspacePatchTool(context)];
}
