import type {
  BeforeModelHook,
  HostedToolSpec,
  ModelBinding,
  ModelRuntime,
  SandboxLease,
  SessionEndHook,
  SessionStartHook,
  SkillBinding,
  Tool,
  TurnStartHook,
} from "@castellan/harness";
import type { ToolApprovalAdapter, ToolPermissionHook } from "../permissions/types.js";
import type { Session } from "../session/session.js";
import type { SessionStore } from "../store/types.js";

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

/**
 * The Runner's open Sessions, for a hook that must act on the Session it is called for (hooks
 * are given its id, not the Session).
 */
export interface SessionLookup {
  /**
   * The open Session `sessionId` of this Runner, child Sessions included, from just before its
   * first Run can start until it has released its resources (so during its hooks, `sessionEnd`
   * included); undefined otherwise, and when two open Sessions share the id.
   */
  get(sessionId: string): Session | undefined;
}

/** What a plugin's `apply` is given. Registration closes when the Runner has been created. */
export interface NodeRunnerHost {
  /** Binds a model runtime to a name agents declare as `model`. A name can be registered once. */
  registerModel(name: string, runtime: ModelRuntime | ModelBinding): void;
  /** Resolves every declared model name per request; exclusive with `registerModel`. */
  registerModelResolver(resolver: ModelResolver): void;
  /** Supplies the implementation of a `hostTool(name)` reference. */
  registerTool(tool: Tool): void;
  /** Supplies a provider-hosted tool (e.g. web search) for a `hostTool(name)` reference. */
  registerHostedTool(spec: HostedToolSpec): void;
  /** Where Sessions are saved. At most one per Runner. */
  registerSessionStore(store: SessionStore): void;
  /** Who answers `ask` decisions. At most one per Runner. */
  registerApproval(adapter: ToolApprovalAdapter): void;
  /** Resolves `sandbox: "name"` declarations. At most one per Runner. */
  registerSandboxResolver(resolver: SandboxResolver): void;
  /** Resolves skills declared by name (`skills: ["name"]`). At most one per Runner. */
  registerSkillResolver(resolver: SkillResolver): void;
  readonly hooks: NodeRunnerHooks;
  /** The Runner's open Sessions by id; usable from hooks, not during `apply` (none is open yet). */
  readonly sessions: SessionLookup;
}

/** A unit of host configuration: applied once when the Runner is created, closed with it. */
export interface NodeRunnerPlugin {
  readonly name: string;
  apply(host: NodeRunnerHost): void | Promise<void>;
  /** Releases what the plugin holds; called once when the Runner closes, in reverse plugin order. */
  close?(): void | Promise<void>;
}
