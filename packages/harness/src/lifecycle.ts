import type { AgentIdentity, ToolReceipt } from "./context.js";
import type { ModelRequest } from "./model.js";
import type { BindingHandle } from "./resource.js";

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
 * What a capability's hooks are given besides a plugin hook's info: what the Session acquired
 * for that capability, so a hook finds its own per-Session state without a lookup by id.
 */
export interface CapabilityScope {
  /** The capability's own acquired resources, in declaration order (as `ToolContext.resources`). */
  readonly resources: readonly BindingHandle[];
  /** The Session's sandbox value, as `ToolContext.sandbox`; undefined when none is declared. */
  readonly sandbox: unknown;
}

/**
 * A capability's lifecycle hooks. The Runner runs them only for Sessions whose agent declares
 * the capability, after the plugins' hooks of the same kind, in declaration order, with the
 * contracts of plugin hooks; each is also given the capability's {@link CapabilityScope}.
 * Declaring runs nothing.
 */
export interface CapabilityHooks {
  readonly sessionStart?: (info: SessionStartInfo & CapabilityScope) => void | Promise<void>;
  readonly turnStart?: (info: TurnInfo & CapabilityScope) => void | Promise<void>;
  readonly beforeModel?: (
    request: ModelRequest,
    info: TurnInfo & CapabilityScope,
  ) => ModelRequest | undefined | void | Promise<ModelRequest | undefined | void>;
  readonly sessionEnd?: (info: SessionEndInfo & CapabilityScope) => void | Promise<void>;
}

/** The names of the capability hooks, for checking a declaration. */
export const capabilityHookNames = ["sessionStart", "turnStart", "beforeModel", "sessionEnd"] as const;
