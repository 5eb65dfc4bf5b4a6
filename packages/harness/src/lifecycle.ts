import type { AgentIdentity, ToolReceipt } from "./context.js";
import type { ModelRequest } from "./model.js";

/** Identifies the turn a lifecycle hook is called for. */
export interface TurnInfo {
  readonly agent: AgentIdentity;
  readonly sessionId: string;
  readonly runId: string;
  readonly turn: number;
  /** Aborted when the Run is aborted. */
  readonly signal: AbortSignal;
  /**
   * Reports that work a hook does on the side failed without failing the Run (for example a
   * host callback it calls): the Run emits a `hook-failed` event naming `hook`.
   */
  reportHookFailure(hook: string, error: unknown): void;
}

/** What a `sessionStart` hook is given: the Session just admitted, and its saved receipts. */
export interface SessionStartInfo {
  readonly agent: AgentIdentity;
  readonly sessionId: string;
  /** Settled receipts of the named tool in the saved transcript, oldest first, compacted ones included. */
  toolCalls(name: string): readonly ToolReceipt[];
  /** Aborted when opening the Session is aborted. */
  readonly signal: AbortSignal;
}

/** What a `sessionEnd` hook is given: the Session being closed. */
export interface SessionEndInfo {
  readonly agent: AgentIdentity;
  readonly sessionId: string;
}

/**
 * Rewrites a model request before it is sent (for example to trim or annotate messages). It
 * must keep the projected tool list exactly; returning nothing keeps the request.
 */
export type BeforeModelHook = (
  request: ModelRequest,
  info: TurnInfo,
) => ModelRequest | undefined | void | Promise<ModelRequest | undefined | void>;

/** Runs before each new turn is projected. */
export type TurnStartHook = (info: TurnInfo) => void | Promise<void>;

/** Runs once a Session is admitted, before it is handed out; a throw fails the open. */
export type SessionStartHook = (info: SessionStartInfo) => void | Promise<void>;

/** Runs once when a Session closes, after its Run settled and before its resources are released. */
export type SessionEndHook = (info: SessionEndInfo) => void | Promise<void>;

/**
 * A capability's lifecycle hooks. The Runner runs them only for Sessions whose agent declares
 * the capability, after the plugins' hooks of the same kind, in declaration order, with the
 * contracts of plugin hooks. Declaring runs nothing.
 */
export interface CapabilityHooks {
  readonly sessionStart?: SessionStartHook;
  readonly turnStart?: TurnStartHook;
  readonly beforeModel?: BeforeModelHook;
  readonly sessionEnd?: SessionEndHook;
}

/** The names of the capability hooks, for checking a declaration. */
export const capabilityHookNames = ["sessionStart", "turnStart", "beforeModel", "sessionEnd"] as const;
