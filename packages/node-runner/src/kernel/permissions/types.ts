import type { ToolPermissionContribution, ToolPermissionRequest } from "@castellan/harness";

// The call a permission hook is asked about is the harness's contract (a tool's own `permission`
// is asked the same question); these names stay importable from here.
export type {
  ParentToolCall,
  ToolPermissionContribution,
  ToolPermissionDecision,
  ToolPermissionRequest,
} from "@castellan/harness";

/** How undecided tool calls are answered: by the tool's declared read-only trait. */
export type PermissionPreset = "read-only" | "ask-on-write" | "full-access";

/** A host policy consulted for every call before the preset. */
export type ToolPermissionHook = (
  request: ToolPermissionRequest,
  options: { readonly signal: AbortSignal },
) => ToolPermissionContribution | Promise<ToolPermissionContribution>;

/** What an approval adapter is asked: the request and why it is being asked. */
export interface ToolApprovalRequest extends ToolPermissionRequest {
  /** One line saying what the call does, from the tool's `describeCall` (default `Call <name>`). */
  readonly title: string;
  /** What to read before answering (a diff, a command line and workdir); "" when the tool gives none. */
  readonly summary: string;
  /** The tool's model-facing description: for reference, not for the person deciding. */
  readonly description: string;
  /** The reason a hook gave for asking, if any. */
  readonly reason?: string;
}

/** A person's (or a policy's) answer to an approval request. */
export interface ToolApprovalAnswer {
  readonly decision: "allow" | "deny";
  readonly reason?: string;
}

/** Asks someone to approve a tool call. Registered once per Runner. */
export interface ToolApprovalAdapter {
  request(request: ToolApprovalRequest, options: { readonly signal: AbortSignal }): Promise<ToolApprovalAnswer>;
}
