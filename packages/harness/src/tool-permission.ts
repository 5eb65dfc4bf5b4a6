import type { AgentIdentity } from "./context.js";
import type { JsonValue } from "./json.js";
import type { DeclarationSource } from "./program.js";
import type { BindingHandle } from "./resource.js";

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

/** What a permission hook (a plugin's `toolPermission`, or a tool's own `permission`) contributes: a decision, with an optional reason, or nothing. */
export type ToolPermissionContribution =
  | ToolPermissionDecision
  | { readonly decision: ToolPermissionDecision; readonly reason?: string }
  | undefined
  | void;

/** What a tool's own `permission` hook is given besides the request. */
export interface ToolPermissionContext {
  /** Aborted when the Run is aborted. */
  readonly signal: AbortSignal;
  /** The Session's sandbox, as in `ToolContext.sandbox`; undefined when none is declared. */
  readonly sandbox: unknown;
  /** The acquired resources of the capability that declares the tool, as in `ToolContext.resources`. */
  readonly resources: readonly BindingHandle[];
}
