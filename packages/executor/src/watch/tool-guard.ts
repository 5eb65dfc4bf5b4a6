import type { DeclarationSource } from "@castellan/harness";

/** What a tool call counts as, for the guard. */
export type ToolFamily = "read" | "search" | "web" | "mcp" | "child" | "edit" | "command" | "other";

const reads = new Set([
  "list_workspace",
  "read_workspace_file",
  "read_workspace_image",
  "create_task",
  "read_task",
  "list_tasks",
  "revise_task",
  "update_task_progress",
  "activate_skill",
  "read_skill_resource",
]);
const edits = new Set(["edit_workspace_file", "apply_workspace_patch"]);
const commands = new Set(["exec_command", "command_session"]);

/**
 * A call's family from its exact name within its contributing source: an MCP server's tools by
 * their `mcp:*` capability and a child agent by its `child:*` one, never by a name prefix.
 */
export function familyOf(toolName: string, source: DeclarationSource | undefined): ToolFamily {
  if (source?.kind === "capability" && source.name.startsWith("mcp:")) return "mcp";
  if (source?.kind === "capability" && source.name.startsWith("child:")) return "child";
  if (toolName === "search_workspace") return "search";
  if (reads.has(toolName)) return "read";
  if (edits.has(toolName)) return "edit";
  if (commands.has(toolName)) return "command";
  return "other";
}

/** The limits the guard enforces (the server's, or a body's raised ones). */
export interface GuardLimits {
  readonly maxConsecutiveMcpCalls: number;
  readonly maxConsecutiveWebCalls: number;
  readonly maxConsecutiveNonActionCalls: number;
  readonly noEditCallLimit: number;
}

/** What one call means for the job. */
export type GuardVerdict =
  | { readonly kind: "ok" }
  /** Action calls reached the no-edit bound with no edit call: the tree must be probed. */
  | { readonly kind: "probe" }
  | {
      readonly kind: "violation";
      readonly code: "guard-mcp-loop" | "guard-web-loop" | "guard-non-action";
      readonly detail: string;
    };

/**
 * The guard over a job's tool calls: pure and synchronous. MCP and web calls each have a cap on
 * consecutive calls, reset by a call outside the family; every no-edit-exempt call (reads,
 * searches, web, MCP, child agents, and any other tool) counts toward a backstop reset only by an
 * action (an edit or a command). In a pass, action calls without an edit call reach the no-edit
 * bound, after which the tree is probed; MCP calls are neutral there, never satisfying it.
 */
export class ToolGuard {
  private mcpRun = 0;
  private webRun = 0;
  private nonActionRun = 0;
  private actionsWithoutEdit = 0;
  private satisfied = false;

  constructor(private readonly limits: GuardLimits) {}

  /** A new pass: the no-edit bound starts over. */
  passStarted(): void {
    this.actionsWithoutEdit = 0;
    this.satisfied = false;
  }

  /** A probe found the tree changed: the pass has its edit. */
  editSatisfied(): void {
    this.satisfied = true;
  }

  /** A probe failed to tell: the bound is counted again from zero. */
  rearm(): void {
    this.actionsWithoutEdit = 0;
  }

  /** Counts one completed call. */
  observe(family: ToolFamily): GuardVerdict {
    this.mcpRun = family === "mcp" ? this.mcpRun + 1 : 0;
    this.webRun = family === "web" ? this.webRun + 1 : 0;
    const action = family === "edit" || family === "command";
    this.nonActionRun = action ? 0 : this.nonActionRun + 1;
    if (this.mcpRun >= this.limits.maxConsecutiveMcpCalls) {
      return { kind: "violation", code: "guard-mcp-loop", detail: `${this.mcpRun} consecutive MCP tool calls` };
    }
    if (this.webRun >= this.limits.maxConsecutiveWebCalls) {
      return { kind: "violation", code: "guard-web-loop", detail: `${this.webRun} consecutive web searches` };
    }
    if (this.nonActionRun >= this.limits.maxConsecutiveNonActionCalls) {
      return {
        kind: "violation",
        code: "guard-non-action",
        detail: `${this.nonActionRun} consecutive calls without an edit or a command`,
      };
    }
    if (family === "edit") this.satisfied = true;
    if (family === "command" && !this.satisfied) {
      this.actionsWithoutEdit += 1;
      if (this.actionsWithoutEdit >= this.limits.noEditCallLimit) return { kind: "probe" };
    }
    return { kind: "ok" };
  }

  /** The counters, for a failure's evidence. */
  counts(): Readonly<Record<string, number>> {
    return {
      consecutiveMcpCalls: this.mcpRun,
      consecutiveWebCalls: this.webRun,
      consecutiveNonActionCalls: this.nonActionRun,
      actionCallsWithoutEdit: this.actionsWithoutEdit,
    };
  }
}
