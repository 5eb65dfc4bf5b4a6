import type { HostedToolSpec, ModelBinding, ModelRuntime, Tool } from "@castellan/harness";
import type { ToolApprovalAdapter } from "../permissions/types.js";
import type { ModelResolver, NodeRunnerHooks, SandboxResolver, SkillResolver } from "../plugins/types.js";
import type { Session } from "../session/session.js";
import type { SessionStore } from "../store/types.js";

// The plugin contract sits with the Runner that applies it: a plugin may look up open Sessions,
// so it is above them, while what plugins register (../plugins/) is below.

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
