import type { Agent } from "@castellan/harness";
import { CastellanError } from "@castellan/harness";
import { checkContextBudget, checkLimits, checkUsageBudget } from "../context/options.js";
import type { HarnessContextBudget, RunLimits } from "../context/session-context.js";
import type { UsageBudget } from "../context/usage-budget.js";
import { AbortedError, InvalidOptionsError, SessionLockedError, SessionStateError } from "../errors/errors.js";
import { isPermissionPreset } from "../permissions/decide.js";
import type { PermissionPreset } from "../permissions/types.js";
import { type BuiltinPromptOverrides, checkBuiltinPrompts } from "../prompts/builtin-prompts.js";
import { admitSession } from "../session/admit.js";
import { NodeSession, type Session } from "../session/session.js";
import type { SessionStore } from "../store/types.js";
import { applyPlugins, closePlugins } from "./apply-plugins.js";
import type { NodeRunnerPlugin } from "./plugin.js";

/** Options of `createNodeRunner`. */
export interface NodeRunnerOptions {
  readonly agent: Agent;
  /**
   * Applied once, in order, when the Runner is created (after `store` and `approval`); closed
   * in reverse when it closes. A plugin's `toolPermission` hooks run before `permissions`.
   * Default none.
   */
  readonly plugins?: readonly NodeRunnerPlugin[];
  /** Where Sessions are saved. Default: nowhere (history lives in memory until close). */
  readonly store?: SessionStore;
  /** A plugin registering the approval adapter, e.g. `terminalApproval()`. Default: none, so `ask` is denied. */
  readonly approval?: NodeRunnerPlugin;
  /**
   * Answers tool calls every permission hook left open. Default: no preset, so the host's
   * `toolPermission` hooks decide, and a call they all leave open goes to the approval adapter
   * (denied without one). `openSession` defaults to `ask-on-write` instead; the README's
   * Permissions section has both entry points' defaults in one table.
   */
  readonly permissions?: PermissionPreset;
  /** Bounds of every Run. Defaults: 200 turns, 10,000 ms abort grace. */
  readonly limits?: Partial<RunLimits>;
  /** What each Run may spend before it stops; a Run's own `budget` option replaces it. Default: no limit. */
  readonly budget?: UsageBudget;
  /** When conversations are compacted. Defaults: see HarnessContextBudget. */
  readonly contextBudget?: Partial<HarnessContextBudget>;
  /** Replacement texts of built-in instruction sections (e.g. `workspace`); "" omits one. Default: none. */
  readonly builtinPrompts?: BuiltinPromptOverrides;
  /** Aborted: creation rejects before any plugin is applied. */
  readonly signal?: AbortSignal;
}

/** Options of `createSession`. */
export interface CreateSessionOptions {
  /** Default: a new random id. The same id and store restore a saved Session. */
  readonly id?: string;
  /** JSON params; omitted on reopen to restore the saved ones. */
  readonly params?: unknown;
  /** Aborts opening; after opening, aborting it aborts the active Run. */
  readonly signal?: AbortSignal;
}

/** Creates Sessions of one agent with one set of plugins. */
export interface NodeRunner {
  readonly agent: Agent;
  createSession(options?: CreateSessionOptions): Promise<Session>;
  /** Closes every open Session, then the plugins in reverse order. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates a Runner: validates options, applies the plugins (registration closes when this
 * resolves). Nothing connects to a model and no Session is opened.
 */
export async function createNodeRunner(options: NodeRunnerOptions): Promise<NodeRunner> {
  const { agent } = options;
  if (agent?.kind !== "agent")
    throw new CastellanError("invalid_declaration", "createNodeRunner needs an agent made with defineAgent.");
  const preset = options.permissions;
  if (preset !== undefined && !isPermissionPreset(preset)) {
    throw new InvalidOptionsError(
      `permissions must be "read-only", "ask-on-write" or "full-access", not ${JSON.stringify(preset)}.`,
    );
  }
  const limits = checkLimits(options.limits);
  const contextBudget = checkContextBudget(options.contextBudget);
  const budget = checkUsageBudget(options.budget);
  const builtinPrompts = checkBuiltinPrompts(options.builtinPrompts);
  if (options.signal?.aborted)
    throw new AbortedError("Creating the Runner was aborted.", { cause: options.signal.reason });
  const plugins = [...optionPlugins(options), ...(options.plugins ?? [])];
  const registry = await applyPlugins(plugins);
  const sessions = new Map<string, NodeSession>();
  const opening = new Set<string>();
  let closing: Promise<void> | undefined;

  return {
    agent,
    async createSession(sessionOptions: CreateSessionOptions = {}) {
      if (closing) throw new SessionStateError("session_closed", "The Runner is closed.");
      const id = sessionOptions.id ?? crypto.randomUUID();
      if (typeof id !== "string" || id.length === 0 || id.length > 200) {
        throw new InvalidOptionsError("A Session id must be a non-empty string of at most 200 characters.");
      }
      if (sessions.has(id) || opening.has(id))
        throw new SessionLockedError(`Session "${id}" is already open in this Runner.`);
      opening.add(id);
      try {
        const admitted = await admitSession({
          agent,
          registry,
          sessionId: id,
          params: sessionOptions.params,
          preset,
          limits,
          contextBudget,
          builtinPrompts,
          signal: sessionOptions.signal,
        });
        const session = new NodeSession(admitted, {
          ...(sessionOptions.signal ? { signal: sessionOptions.signal } : {}),
          ...(budget ? { budget } : {}),
        });
        session.afterClose(() => {
          sessions.delete(id);
        });
        sessions.set(id, session);
        return session;
      } finally {
        opening.delete(id);
      }
    },
    close() {
      closing ??= (async () => {
        const results = await Promise.allSettled([...sessions.values()].map((session) => session.close()));
        await closePlugins(plugins);
        const failed = results.find((result) => result.status === "rejected");
        if (failed) throw failed.reason;
      })();
      return closing;
    },
  };
}

/** The `store` and `approval` options as the plugins that register them, in that order. */
function optionPlugins(options: Pick<NodeRunnerOptions, "store" | "approval">): NodeRunnerPlugin[] {
  const plugins: NodeRunnerPlugin[] = [];
  const store = options.store;
  if (store) {
    if (typeof store.open !== "function") throw new InvalidOptionsError("store must be a SessionStore.");
    plugins.push({ name: "castellan.options.store", apply: (host) => host.registerSessionStore(store) });
  }
  if (options.approval !== undefined) {
    if (typeof options.approval?.apply !== "function") {
      throw new InvalidOptionsError(
        "approval must be a plugin that registers an approval adapter, e.g. terminalApproval().",
      );
    }
    plugins.push(options.approval);
  }
  return plugins;
}
