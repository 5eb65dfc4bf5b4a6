import type { RunAgent } from "./child-run.js";
import type { ContentBlock } from "./content.js";
import type { JsonObject, JsonValue } from "./json.js";
import type { BindingHandle, ResourceRequest } from "./resource.js";

/** The settled result of a tool call. */
export interface ToolResult {
  readonly content: readonly ContentBlock[];
  readonly isError: boolean;
}

/** A settled tool call: a frozen Session fact, kept across Runs, compaction and restarts. */
export interface ToolReceipt {
  readonly toolCallId: string;
  readonly name: string;
  readonly input: JsonValue;
  /** The complete result the model was given. */
  readonly result: ToolResult;
  /** False when the result is an error (including a denied or invalid call). */
  readonly ok: boolean;
  readonly runId: string;
  /** The turn, within its Run, whose model response asked for the call. */
  readonly turn: number;
}

/**
 * One provider-hosted tool call (e.g. a web search the provider ran during a model call): a
 * frozen Session fact, kept across Runs, compaction and restarts. It holds what was searched
 * and which sources came back, never page content.
 */
export interface HostedToolCall {
  /** The provider's id of the call. */
  readonly callId: string;
  /** The queries the provider reported, at most 8. */
  readonly queries: readonly string[];
  /** The sources it returned, at most 50, titles cut at 300 characters. */
  readonly sources: readonly { readonly url: string; readonly title?: string }[];
  /** False when the provider reported the call failed (or never finished it). */
  readonly ok: boolean;
  readonly runId: string;
  /** The turn, within its Run, whose model call ran it. */
  readonly turn: number;
}

/** The read-only view of state: the agent's and its capabilities' keys in one flat space. */
export type StateView = Readonly<Record<string, JsonValue>>;

/**
 * The declared state keys of an agent and their JSON values, as a type (`{ updates: number }`):
 * what types `ctx.state` and `ctx.setState` in its instructions, `enabled` functions and
 * tools. Default: any key, any JSON value.
 */
export type StateShape = Readonly<Record<string, JsonValue>>;

/** State as a section, `enabled` or tool reads it: the declared keys typed, a capability's other keys as JSON. */
export type TypedStateView<State extends StateShape = StateView> = Readonly<State> & StateView;

/** What instruction sections and `enabled` functions are given before each turn. */
export interface TurnContext<State extends StateShape = StateView> {
  /** The turn within the current Run, from 1. Before the first Run's first turn it is 0. */
  readonly turn: number;
  /** The Session's parameters, deeply frozen. */
  readonly params: JsonObject;
  /** Committed state. */
  readonly state: TypedStateView<State>;
  /** Settled receipts of the named tool, oldest first. */
  toolCalls(name: string): readonly ToolReceipt[];
  /** Calls of the named provider-hosted tool (e.g. `web_search`), oldest first. */
  hostedToolCalls(name: string): readonly HostedToolCall[];
  /**
   * The value of an acquired capability resource. Throws `ResourcePendingError` where the
   * resource has not been acquired (for example in `projectAgent`).
   */
  resource<Value>(request: ResourceRequest<unknown, Value>): Value;
}

/** The identity of the agent whose model made a call. */
export interface AgentIdentity {
  readonly id: string;
}

/** A state update: a patch of declared keys, or a function of the latest state returning one. */
export type StateUpdate<State extends StateShape = StateView> =
  | Readonly<Partial<State>>
  | ((state: TypedStateView<State>) => Readonly<Partial<State>>);

/** What a tool's `execute` is given besides its input. */
export interface ToolContext<State extends StateShape = StateView> extends TurnContext<State> {
  readonly sessionId: string;
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly agent: AgentIdentity;
  /** Aborted when the Run is aborted; stop work and return soon. (Closing a Session waits for its Run instead.) */
  readonly signal: AbortSignal;
  /**
   * Stable for this call across retries and restarts: hand it to outside services that
   * deduplicate requests, so a retried call has its effect once.
   */
  readonly idempotencyKey: string;
  /**
   * The sandbox the Session acquired: the `sandbox` value of its `SandboxLease`, the same
   * object for every call of the Session. Undefined when the agent declares no sandbox.
   */
  readonly sandbox: unknown;
  /**
   * The resources of the capability that declares this tool, as the Session acquired them, in
   * declaration order. Empty for a tool the agent declares itself.
   */
  readonly resources: readonly BindingHandle[];
  /**
   * Committed state with this batch's earlier writes over it. (`TurnContext.state` in
   * sections and `enabled` shows committed state only.)
   */
  readonly state: TypedStateView<State>;
  /**
   * Queues a state update: a patch of declared keys with JSON values, or a function of the
   * latest state returning one. Later tools of the batch see it; it commits when the batch
   * settles, and is discarded if the Run is aborted or fails first. Throws on an undeclared
   * key or a non-JSON value.
   */
  setState(update: StateUpdate<State>): void;
  /**
   * Runs `task` (1 to 32,768 bytes) as a foreground child Session of the calling Session's
   * Runner (`<sessionId>/child/<toolCallId>`): the child's own Program, resources and model, no
   * parent history, only `options.toolGrants` in every turn, every call under the parent's
   * hooks, preset and approval with `parent` on the request, and its events streamed to the
   * parent's consumer as `child-event`s. Resolves once the child Session is closed, with how it
   * ended (a failure is an outcome, not a throw); the model usage of every child a call ran is
   * kept on the call's receipt as `childUsage`. Throws `ToolInputError` `child_depth_exceeded`
   * when no delegation level is left, and `task_invalid` for a bad task.
   */
  readonly runAgent: RunAgent;
  /** What the tool's `admit` returned as `admission` for this call; undefined for a tool without `admit`. */
  readonly admission?: JsonValue;
}
