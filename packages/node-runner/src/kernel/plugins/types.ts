import type {
  BeforeModelHook,
  ModelBinding,
  ModelRuntime,
  SandboxLease,
  SessionEndHook,
  SessionStartHook,
  SkillBinding,
  TurnStartHook,
} from "@castellan/harness";
import type { ToolPermissionHook } from "../permissions/types.js";

/** What a model resolver is asked when a Run's model call starts. */
export interface ModelResolutionRequest {
  /** The model name the agent declares. */
  readonly name: string;
  readonly sessionId: string;
  readonly runId: string;
  readonly signal: AbortSignal;
}

/** Resolves a model name to a connection for each request (e.g. for changing accounts). */
export interface ModelResolver {
  resolve(request: ModelResolutionRequest): ModelRuntime | ModelBinding | Promise<ModelRuntime | ModelBinding>;
}

/**
 * Resolves a skill declared by name, once per Session open, for names no direct binding or
 * `skills()` capability provides. Undefined: the name is not known here (`skill_not_found`).
 */
export interface SkillResolver {
  resolve(request: {
    readonly name: string;
    readonly sessionId: string;
    readonly signal: AbortSignal;
  }): Promise<SkillBinding | undefined> | SkillBinding | undefined;
}

/** Resolves a sandbox name declared as `sandbox: "name"` to a lease, once per Session. */
export interface SandboxResolver {
  open(request: {
    readonly specifier: string;
    readonly sessionId: string;
    readonly signal: AbortSignal;
  }): Promise<SandboxLease>;
}

export type {
  BeforeModelHook,
  SessionEndHook,
  SessionEndInfo,
  SessionStartHook,
  SessionStartInfo,
  TurnInfo,
  TurnStartHook,
} from "@castellan/harness";

/** A committed state change. */
export interface StateChange {
  readonly sessionId: string;
  readonly runId?: string;
  readonly turn?: number;
  readonly source: "host" | "tool";
  readonly changes: Readonly<Record<string, unknown>>;
}

/** Runs after state changes are committed. */
export type StateChangedHook = (change: StateChange) => void | Promise<void>;

/** Registers the lifecycle hooks. Each may be registered by several plugins; they run in registration order. */
export interface NodeRunnerHooks {
  toolPermission(hook: ToolPermissionHook): void;
  beforeModel(hook: BeforeModelHook): void;
  turnStart(hook: TurnStartHook): void;
  stateChanged(hook: StateChangedHook): void;
  /** After a Session is admitted (its saved receipts readable), before it is handed out; a throw fails the open. */
  sessionStart(hook: SessionStartHook): void;
  /**
   * Once per Session close, after its Run settled and before its resources are released.
   * Awaited in order; a failure does not skip the rest, and `close()` rejects with the first.
   */
  sessionEnd(hook: SessionEndHook): void;
}
