import type { Tool } from "@castellan/harness";
import {
  createWorkspaceInstructionsPlugin,
  type WorkspaceInstructionsPlugin,
  type WorkspaceInstructionsReceipt,
} from "../../src/capabilities/workspace/instructions/instructions-plugin.js";
import type { SearchEngine } from "../../src/capabilities/workspace/search/index.js";
import { createRootBoundWorkspaceTools } from "../../src/capabilities/workspace/tools/create-root-bound-workspace-tools.js";
import type { WorkspaceLimits } from "../../src/capabilities/workspace/tools/limits.js";
import type { WorkspaceOperations } from "../../src/platform/paths/operations.js";

/** Options of the tools a test makes, besides the root and the plugin. */
export interface TestWorkspaceToolsOptions {
  readonly limits?: Partial<WorkspaceLimits>;
  readonly requireExistingParents?: boolean;
  readonly operations?: WorkspaceOperations;
  readonly searchEngine?: SearchEngine;
  /** Lift the protected-entries rule (`path_protected`); default false. */
  readonly allowProtectedWrites?: boolean;
}

/**
 * The five workspace tools for `rootUrl`, by name, with an instructions plugin applied to a
 * stand-in host (so the tools accept calls) and the receipts it recorded.
 */
export function workspaceToolsFor(
  rootUrl: URL,
  options: TestWorkspaceToolsOptions = {},
): { readonly tools: Readonly<Record<string, Tool>>; readonly receipts: WorkspaceInstructionsReceipt[] } {
  const receipts: WorkspaceInstructionsReceipt[] = [];
  const instructions = createWorkspaceInstructionsPlugin({
    rootDirectory: rootUrl,
    record: (receipt) => void receipts.push(receipt),
  });
  instructions.apply({ hooks: { beforeModel: () => undefined, sessionEnd: () => undefined } } as never);
  const list = toolsWith(rootUrl, instructions, options);
  return { tools: Object.fromEntries(list.map((tool) => [tool.name, tool])), receipts };
}

/** The workspace tools for `rootUrl` bound to an `instructions` plugin the caller registers in its Runner. */
export function toolsWith(
  rootUrl: URL,
  instructions: WorkspaceInstructionsPlugin,
  options: TestWorkspaceToolsOptions = {},
): readonly Tool[] {
  return createRootBoundWorkspaceTools({ root: rootUrl, instructions, ...options });
}
