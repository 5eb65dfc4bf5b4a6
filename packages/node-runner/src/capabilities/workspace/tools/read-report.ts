import {
  isReportObject,
  jsonBlockOf,
  type SettledToolCall,
  settledToolName,
  ToolReportError,
} from "../../../kernel/tools/tool-report.js";
import type { SearchWorkspacePage } from "../search/types.js";
import type { EditReceipt } from "./edit-workspace-file.js";
import type { ListPage } from "./list-workspace.js";
import type { PatchReceipt } from "./patch-commit.js";
import type { ReadPage } from "./read-page.js";

/** What a workspace file tool reported, by tool. */
export type WorkspaceToolReport =
  | { readonly tool: "read_workspace_file"; readonly page: ReadPage }
  | { readonly tool: "list_workspace"; readonly page: ListPage }
  | { readonly tool: "search_workspace"; readonly page: SearchWorkspacePage }
  | { readonly tool: "edit_workspace_file"; readonly receipt: EditReceipt }
  | {
      readonly tool: "apply_workspace_patch";
      /** The files written, in order. */
      readonly receipts: readonly PatchReceipt[];
      /** False when the patch stopped part way: `receipts` were written, the rest were not. */
      readonly complete: boolean;
      /** Which file failed and why, when the patch stopped part way. */
      readonly diagnostic?: string;
    };

function object(name: string, value: unknown, field: string): Record<string, unknown> {
  if (!isReportObject(value) || !(field in value)) throw new ToolReportError(name, `it has no "${field}".`);
  return value;
}

function patchReceipts(name: string, value: unknown): readonly PatchReceipt[] {
  if (!Array.isArray(value) || !value.every((entry) => isReportObject(entry) && typeof entry.path === "string")) {
    throw new ToolReportError(name, "it is not a list of file receipts.");
  }
  return value as PatchReceipt[];
}

/**
 * The report of a workspace file tool's call, parsed from its receipt (or `tool-end` event):
 * a `read_workspace_file`, `list_workspace` or `search_workspace` page, an
 * `edit_workspace_file` receipt, or the files `apply_workspace_patch` wrote, including those
 * of a patch that stopped part way (`complete: false`, with the diagnostic). Undefined for
 * another tool and for any other error result (a refusal: its text says why).
 *
 * @throws ToolReportError (`tool_report_invalid`) for a result that is not that tool's report.
 */
export function readWorkspaceReport(call: SettledToolCall): WorkspaceToolReport | undefined {
  const name = settledToolName(call);
  if (name === "apply_workspace_patch") {
    const blocks = call.result.content;
    if (!call.result.isError) return { tool: name, receipts: patchReceipts(name, jsonBlockOf(call)), complete: true };
    // A partial patch: the committed receipts, then the diagnostic. Any other error is a refusal.
    const first = blocks[0];
    const second = blocks[1];
    if (blocks.length !== 2 || first?.type !== "text" || !first.text.startsWith("[") || second?.type !== "text") {
      return undefined;
    }
    return { tool: name, receipts: patchReceipts(name, jsonBlockOf(call)), complete: false, diagnostic: second.text };
  }
  if (call.result.isError) return undefined;
  switch (name) {
    case "read_workspace_file":
      return { tool: name, page: object(name, jsonBlockOf(call), "text") as unknown as ReadPage };
    case "list_workspace":
      return { tool: name, page: object(name, jsonBlockOf(call), "entries") as unknown as ListPage };
    case "search_workspace":
      return { tool: name, page: object(name, jsonBlockOf(call), "hits") as unknown as SearchWorkspacePage };
    case "edit_workspace_file":
      return { tool: name, receipt: object(name, jsonBlockOf(call), "operation") as unknown as EditReceipt };
    default:
      return undefined;
  }
}
