import type { AgentIdentity, DeclarationSource, JsonValue } from "@castellan/harness";

/** How undecided tool calls are answered: by the tool's declared read-only trait. */
export type PermissionPreset = "read-only" | "ask-on-write" | "full-access";

/** A hook's or preset's answer. `defer` (like no answer) leaves the call to the next stage. */
export type ToolPermissionDecision = "allow" | "ask" | "deny" | "defer";

/** The tool call that started a child agent, carried by the child's requests. */
export interface ParentToolCall {
  readonly sessionId: string;
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
}

/** A tool call awaiting permission: its exact final input, and who asked for it. */
export interface ToolPermissionRequest {
  /** The agent whose model made the call. */
  readonly agent: AgentIdentity;
  /** Present for a call made inside a child agent. */
  readonly parent?: ParentToolCall;
  readonly sessionId: string;
  readonly runId: string;
  readonly turn: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /**
   * Who contributed the tool: the agent itself, or a capability (`mcp:<server>` for an MCP
   * server's tool, `skills`, `workspace`, ...). Classify a call by this, never by a name prefix.
   */
  readonly source: DeclarationSource;
  readonly input: JsonValue;
  /** The tool's declared trait; nothing is inferred from its name or description. */
  readonly readOnly: boolean;
  /** What the tool's `admit` said the call will do (frozen JSON); absent for a tool without `admit`. */
  readonly admission?: JsonValue;
}

/** What a `toolPermission` hook contributes: a decision, with an optional reason, or nothing. */
export type ToolPermissionContribution =
  | ToolPermissionDecision
  | { readonly decision: ToolPermissionDecision; readonly reason?: string }
  | undefined
  | void;

/** A host policy consulted for every call before the preset. */
export type ToolPermissionHook = (
  request: ToolPermissionRequest,
  options: { readonly signal: AbortSignal },
) => ToolPermissionContribution | Promise<ToolPermissionContribution>;

/** What an approval adapter is asked: the request and why it is being asked. */
export interface ToolApprovalRequest extends ToolPermissionRequest {
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
