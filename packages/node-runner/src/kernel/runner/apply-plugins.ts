import type { HostedToolSpec, ModelBinding, ModelRuntime, Tool } from "@castellan/harness";
import { PluginError } from "../errors/errors.js";
import { assertModelRuntime, type BoundModel, bindModel } from "../models/bound-model.js";
import type { ToolApprovalAdapter, ToolPermissionHook } from "../permissions/types.js";
import { OpenSessions } from "../plugins/open-sessions.js";
import type { Registry } from "../plugins/registry.js";
import type {
  BeforeModelHook,
  ModelResolver,
  SandboxResolver,
  SessionEndHook,
  SessionStartHook,
  SkillResolver,
  StateChangedHook,
  TurnStartHook,
} from "../plugins/types.js";
import type { Session } from "../session/session.js";
import type { SessionStore } from "../store/types.js";
import type { NodeRunnerHost, NodeRunnerPlugin } from "./plugin.js";

/**
 * Applies plugins in order and collects their registrations, rejecting conflicts: a model or
 * tool name registered twice, named models mixed with a resolver, two stores, two approval
 * adapters or two sandbox resolvers. Registration closes when this resolves.
 */
export async function applyPlugins(plugins: readonly NodeRunnerPlugin[]): Promise<Registry> {
  const models = new Map<string, BoundModel>();
  const tools = new Map<string, Tool>();
  const hostedTools = new Map<string, HostedToolSpec>();
  const hooks = {
    toolPermission: [] as ToolPermissionHook[],
    beforeModel: [] as BeforeModelHook[],
    turnStart: [] as TurnStartHook[],
    stateChanged: [] as StateChangedHook[],
    sessionStart: [] as SessionStartHook[],
    sessionEnd: [] as SessionEndHook[],
  };
  let modelResolver: ModelResolver | undefined;
  let store: SessionStore | undefined;
  let approval: ToolApprovalAdapter | undefined;
  let sandboxResolver: SandboxResolver | undefined;
  let skillResolver: SkillResolver | undefined;
  const sessions = new OpenSessions<Session>();
  let open = true;
  let current = "";

  const fail = (message: string): never => {
    throw new PluginError(`Plugin "${current}": ${message}`);
  };
  const guard = <Args extends unknown[]>(register: (...args: Args) => void) => {
    return (...args: Args) => {
      if (!open) fail("registration is closed once the Runner has been created.");
      register(...args);
    };
  };
  const hook = <Hook>(list: Hook[], what: string) =>
    guard((handler: Hook) => {
      if (typeof handler !== "function") fail(`hooks.${what} needs a function.`);
      list.push(handler);
    });

  const host: NodeRunnerHost = {
    registerModel: guard((name: string, runtime: ModelRuntime | ModelBinding) => {
      if (typeof name !== "string" || name.length === 0) fail("registerModel needs a non-empty name.");
      if (modelResolver)
        fail(`registerModel("${name}"): this Runner already has a model resolver; use one or the other.`);
      if (models.has(name)) fail(`registerModel("${name}"): the name is already registered.`);
      assertModelRuntime(runtime, `registerModel("${name}")`);
      models.set(name, bindModel(runtime, name));
    }),
    registerModelResolver: guard((resolver: ModelResolver) => {
      if (typeof resolver?.resolve !== "function") fail("registerModelResolver needs { resolve(request) }.");
      if (modelResolver) fail("a model resolver is already registered.");
      if (models.size > 0) fail("named models are already registered; a Runner uses named models or one resolver.");
      modelResolver = resolver;
    }),
    registerTool: guard((tool: Tool) => {
      if (tool?.kind !== "tool") fail("registerTool needs a value made with defineTool.");
      if (tools.has(tool.name) || hostedTools.has(tool.name)) fail(`tool "${tool.name}" is already registered.`);
      tools.set(tool.name, tool);
    }),
    registerHostedTool: guard((spec: HostedToolSpec) => {
      if (typeof spec?.name !== "string" || typeof spec.hosted?.kind !== "string") {
        fail("registerHostedTool needs { name, hosted: { kind } }.");
      }
      if (tools.has(spec.name) || hostedTools.has(spec.name)) fail(`tool "${spec.name}" is already registered.`);
      hostedTools.set(spec.name, Object.freeze({ ...spec }));
    }),
    registerSessionStore: guard((candidate: SessionStore) => {
      if (typeof candidate?.open !== "function") fail("registerSessionStore needs a SessionStore.");
      if (store) fail("a session store is already registered; a Runner has one.");
      store = candidate;
    }),
    registerApproval: guard((adapter: ToolApprovalAdapter) => {
      if (typeof adapter?.request !== "function") fail("registerApproval needs { request(request, options) }.");
      if (approval) fail("an approval adapter is already registered; a Runner has one.");
      approval = adapter;
    }),
    registerSkillResolver: guard((resolver: SkillResolver) => {
      if (typeof resolver?.resolve !== "function") fail("registerSkillResolver needs { resolve(request) }.");
      if (skillResolver) fail("a skill resolver is already registered; a Runner has one.");
      skillResolver = resolver;
    }),
    registerSandboxResolver: guard((resolver: SandboxResolver) => {
      if (typeof resolver?.open !== "function") fail("registerSandboxResolver needs { open(request) }.");
      if (sandboxResolver) fail("a sandbox resolver is already registered; a Runner has one.");
      sandboxResolver = resolver;
    }),
    hooks: {
      toolPermission: hook(hooks.toolPermission, "toolPermission"),
      beforeModel: hook(hooks.beforeModel, "beforeModel"),
      turnStart: hook(hooks.turnStart, "turnStart"),
      stateChanged: hook(hooks.stateChanged, "stateChanged"),
      sessionStart: hook(hooks.sessionStart, "sessionStart"),
      sessionEnd: hook(hooks.sessionEnd, "sessionEnd"),
    },
    sessions: Object.freeze({ get: (sessionId: string) => sessions.get(sessionId) }),
  };

  const names = new Set<string>();
  const applied: NodeRunnerPlugin[] = [];
  for (const plugin of plugins) {
    if (typeof plugin?.name !== "string" || typeof plugin.apply !== "function") {
      throw new PluginError("A plugin needs a name and an apply(host) function.");
    }
    if (names.has(plugin.name)) throw new PluginError(`Plugin "${plugin.name}" is given twice.`);
    names.add(plugin.name);
    current = plugin.name;
    applied.push(plugin);
    try {
      await plugin.apply(host);
    } catch (error) {
      // A failed Runner releases what the plugins applied so far acquired.
      await closePlugins(applied).catch(() => undefined);
      if (error instanceof PluginError) throw error;
      throw new PluginError(`Plugin "${plugin.name}" failed to apply: ${(error as Error)?.message ?? error}`, {
        cause: error,
      });
    }
  }
  open = false;
  return Object.freeze({
    models,
    modelResolver,
    tools,
    hostedTools,
    store,
    approval,
    sandboxResolver,
    skillResolver,
    sessions,
    hooks: Object.freeze(hooks),
  });
}

/** Closes plugins in reverse order; every one is closed even if another fails. */
export async function closePlugins(plugins: readonly NodeRunnerPlugin[]): Promise<void> {
  const failures: unknown[] = [];
  for (const plugin of [...plugins].reverse()) {
    try {
      await plugin.close?.();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) {
    throw new PluginError(`${failures.length} plugin(s) failed to close.`, { cause: new AggregateError(failures) });
  }
}
