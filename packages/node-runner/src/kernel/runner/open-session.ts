import type { Agent } from "@castellan/harness";
import type { HarnessContextBudget, RunLimits } from "../context/session-context.js";
import type { UsageBudget } from "../context/usage-budget.js";
import { AbortedError } from "../errors/errors.js";
import type { PermissionPreset } from "../permissions/types.js";
import type { BuiltinPromptOverrides } from "../prompts/builtin-prompts.js";
import type { NodeSession, Session } from "../session/session.js";
import type { SessionStore } from "../store/types.js";
import { createNodeRunner, type NodeRunner } from "./create-node-runner.js";
import type { NodeRunnerPlugin } from "./plugin.js";

/** Options of `openSession`. */
export interface OpenSessionOptions {
  readonly agent: Agent;
  /** Default: a new random id. The same id and store restore the saved Session. */
  readonly id?: string;
  /** JSON params; omit on reopen to restore the saved ones. */
  readonly params?: unknown;
  /** Where the Session is saved. Default: nowhere (history lives in memory until close). */
  readonly store?: SessionStore;
  /** A plugin registering the approval adapter, e.g. `terminalApproval()`; closed with the Session. */
  readonly approval?: NodeRunnerPlugin;
  /**
   * Applied in order after `store` and `approval`, as `createNodeRunner` applies them (a
   * permission hook, the commands plugin, a model resolver...); closed with the Session.
   * Adding one changes no other default. Default none.
   */
  readonly plugins?: readonly NodeRunnerPlugin[];
  /** Answers what the permission hooks leave open, as in `createNodeRunner`. Default `ask-on-write`. */
  readonly permissions?: PermissionPreset;
  /** Already aborted: rejects before any plugin is applied. Aborted later: aborts the active Run. */
  readonly signal?: AbortSignal;
  /** Bounds of every Run. Defaults: 200 turns, 10,000 ms abort grace. */
  readonly limits?: Partial<RunLimits>;
  /** What each Run may spend; a Run's own `budget` option replaces it. Default: no limit. */
  readonly budget?: UsageBudget;
  /** When the conversation is compacted. Defaults: see HarnessContextBudget. */
  readonly contextBudget?: Partial<HarnessContextBudget>;
  /** Replacement texts of built-in instruction sections (e.g. `workspace`); "" omits one. Default: none. */
  readonly builtinPrompts?: BuiltinPromptOverrides;
}

/**
 * Opens one Session on a private Runner. Closing the Session closes that Runner and the
 * approval plugin; a failed open cleans up the same way. Always close an opened Session in
 * `finally`.
 */
export async function openSession(options: OpenSessionOptions): Promise<Session> {
  if (options.signal?.aborted)
    throw new AbortedError("Opening the Session was aborted.", { cause: options.signal.reason });
  const runner: NodeRunner = await createNodeRunner({
    agent: options.agent,
    ...(options.store ? { store: options.store } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
    permissions: options.permissions ?? "ask-on-write",
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.contextBudget ? { contextBudget: options.contextBudget } : {}),
    ...(options.builtinPrompts ? { builtinPrompts: options.builtinPrompts } : {}),
  });
  let session: NodeSession;
  try {
    session = (await runner.createSession({
      ...(options.id !== undefined ? { id: options.id } : {}),
      ...(options.params !== undefined ? { params: options.params } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    })) as NodeSession;
  } catch (error) {
    await runner.close().catch(() => undefined);
    throw error;
  }
  // The private Runner goes with its one Session.
  session.afterClose(() => runner.close());
  return session;
}
