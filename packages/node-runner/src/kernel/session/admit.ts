import type {
  Agent,
  BeforeModelHook,
  BindingHandle,
  CapabilityHooks,
  CapabilityScope,
  JsonValue,
  SandboxLease,
  SessionEndHook,
  SessionEndInfo,
  SessionStartInfo,
  TurnStartHook,
} from "@castellan/harness";
import { CastellanError, errorMessage } from "@castellan/harness";
import {
  type ChildScope,
  type HarnessContextBudget,
  projectSession,
  type RunLimits,
  type SessionContext,
} from "../context/session-context.js";
import { AbortedError, SessionHookError } from "../errors/errors.js";
import type { HistoryView } from "../history/session-history.js";
import { SessionJournal } from "../journal/session-journal.js";
import type { BoundModel } from "../models/bound-model.js";
import type { PermissionPreset } from "../permissions/types.js";
import type { Registry } from "../plugins/registry.js";
import type { BuiltinPromptOverrides } from "../prompts/builtin-prompts.js";
import { ResourceOwner } from "../resources/resource-owner.js";
import { type SessionOpenRecord, sessionLogFormatVersion } from "../store/records.js";
import type { SessionLog } from "../store/types.js";
import { abortable } from "../util/abortable.js";
import { queueReservedStateField } from "../util/reserved-state-queue.js";
import { admit } from "./admission.js";
import { InspectionRecorder } from "./inspection.js";
import { runChildAgent } from "./run-child.js";

/** What opening a Session needs. */
export interface AdmissionRequest {
  readonly agent: Agent;
  readonly registry: Registry;
  readonly sessionId: string;
  /** Omitted: a new Session has none, a saved one restores its own. */
  readonly params: unknown;
  /** Undefined: no preset; calls every hook leaves open are asked about. */
  readonly preset: PermissionPreset | undefined;
  readonly limits: RunLimits;
  readonly contextBudget: HarnessContextBudget;
  readonly builtinPrompts: BuiltinPromptOverrides;
  readonly signal: AbortSignal | undefined;
  /** Set for a child agent's Session: the delegating call, the granted tools, and the delegation levels left. */
  readonly child?: ChildScope;
}

/** An admitted Session: what its Runs are given, and what closing it must release. */
export interface AdmittedSession {
  readonly context: SessionContext;
  readonly registry: Registry;
  readonly history: HistoryView;
  readonly owner: ResourceOwner;
  readonly log: SessionLog | undefined;
  /** Whether this open created the Session (no saved history). */
  readonly created: boolean;
  /** The sandbox lease, where the agent declares one. */
  readonly sandbox: SandboxLease | undefined;
  readonly inspection: InspectionRecorder;
  /** The plugins' `sessionEnd` hooks, then the agent's capabilities', in order. */
  readonly sessionEnd: readonly { readonly owner: string; readonly hook: SessionEndHook }[];
  /** The model of the latest model call; undefined before the first. */
  lastModel(): BoundModel | undefined;
}

/**
 * Opens a Session: takes the store's writer lock, admits the saved history (`admission.ts`:
 * checks, the Program, its bindings and resources), builds its write path (the journal) and
 * the context its Runs are given, and projects once. Any failure releases what was acquired,
 * in reverse, and leaves the saved files as they were.
 */
export async function admitSession(request: AdmissionRequest): Promise<AdmittedSession> {
  const { agent, registry, sessionId, signal } = request;
  if (signal?.aborted) throw new AbortedError("Opening the Session was aborted.", { cause: signal.reason });
  let log: SessionLog | undefined;
  try {
    log = registry.store ? await registry.store.open(sessionId, signal ? { signal } : {}) : undefined;
  } catch (error) {
    throw abortedOr(error, signal);
  }
  const owner = new ResourceOwner();
  try {
    const admitted = await admit({
      agent,
      registry,
      sessionId,
      params: request.params,
      contextBudget: request.contextBudget,
      log,
      owner,
      signal: signal ?? new AbortController().signal,
    });
    const { history, params, program, tools } = admitted;
    // Built-in capabilities queue their reserved keys through the host-write queue (internal).
    const queueReserved = (capabilityName: string, changes: Readonly<Record<string, JsonValue>>) => {
      for (const key of Object.keys(changes)) {
        const owner = program.reservedState[key];
        if (owner?.kind !== "capability" || owner.name !== capabilityName) {
          throw new Error(`Capability "${capabilityName}" does not own the reserved state key "${key}".`);
        }
      }
      return journal.commit([{ kind: "state-queued", changes: structuredClone(changes) }]);
    };
    const scopes = capabilityScopes(admitted.capabilityResources, admitted.sandbox?.sandbox, queueReserved);
    const opening: SessionOpenRecord | undefined = admitted.created
      ? { kind: "session-open", formatVersion: sessionLogFormatVersion, sessionId, agentId: agent.id, params }
      : undefined;
    // A new Session is saved now when it has params, otherwise with its first write.
    const journal = new SessionJournal(log, history, opening);
    const inspection = new InspectionRecorder(program, (name) => {
      const bound = tools.get(name);
      return bound?.kind === "local"
        ? { kind: "local", readOnly: bound.tool.readOnly }
        : { kind: "hosted", readOnly: false };
    });
    let lastModel: BoundModel | undefined;
    const context: SessionContext = {
      sessionId,
      agent: Object.freeze({ id: agent.id }),
      program,
      params,
      history,
      journal,
      tools,
      model: admitted.model,
      compactionModel: admitted.compactionModel,
      // A capability's hooks run after the plugins' of the same kind, in declaration order.
      hooks: {
        beforeModel: [
          ...registry.hooks.beforeModel,
          ...capabilityHooks(agent, "beforeModel", scopes).map(
            ({ hook, scope }): BeforeModelHook =>
              (modelRequest, info) =>
                hook(modelRequest, { ...info, ...scope }),
          ),
        ],
        turnStart: [
          ...registry.hooks.turnStart,
          ...capabilityHooks(agent, "turnStart", scopes).map(
            ({ hook, scope }): TurnStartHook =>
              (info) =>
                hook({ ...info, ...scope }),
          ),
        ],
        stateChanged: registry.hooks.stateChanged,
      },
      policy: { hooks: registry.hooks.toolPermission, preset: request.preset, approval: registry.approval },
      resources: admitted.resources,
      capabilityResources: admitted.capabilityResources,
      sandbox: admitted.sandbox?.sandbox,
      limits: request.limits,
      contextBudget: request.contextBudget,
      builtinPrompts: request.builtinPrompts,
      skills: admitted.skills,
      // Run code reaches the Runner's registrations only through this: a child opens on them.
      runChild: (spec, call, emit) => runChildAgent(context, registry, spec, call, emit),
      preset: request.preset,
      ...(request.child ? { child: request.child } : {}),
      inspection: {
        observeProjection: (projection, at) => inspection.observe(projection, at),
        observeModel: (model) => {
          lastModel = model;
        },
      },
    };
    // The initial projection proves every section and `enabled` function runs on the acquired resources.
    inspection.observe(projectSession(context, 0), { turn: 0 });
    if (opening && Object.keys(params).length > 0) await journal.saveOpening();
    if (signal?.aborted) throw new AbortedError("Opening the Session was aborted.", { cause: signal.reason });
    await runSessionStart(agent, registry, scopes, {
      agent: context.agent,
      sessionId,
      toolCalls: (name) => history.toolCalls(name),
      signal: signal ?? new AbortController().signal,
    });
    return {
      context,
      registry,
      history,
      owner,
      log,
      created: admitted.created,
      sandbox: admitted.sandbox,
      inspection,
      sessionEnd: [
        ...registry.hooks.sessionEnd.map((hook) => ({ owner: "a plugin", hook })),
        ...capabilityHooks(agent, "sessionEnd", scopes).map(({ owner, hook, scope }) => ({
          owner,
          hook: (info: SessionEndInfo) => hook({ ...info, ...scope }),
        })),
      ],
      lastModel: () => lastModel,
    };
  } catch (error) {
    await owner.releaseAll().catch(() => undefined);
    await log?.close().catch(() => undefined);
    throw abortedOr(error, signal);
  }
}

const noResources: readonly BindingHandle[] = Object.freeze([]);

/** Each capability's scope: its own acquired resources and the Session's sandbox value (and, internally, its reserved-state queue). */
function capabilityScopes(
  resources: ReadonlyMap<string, readonly BindingHandle[]>,
  sandbox: unknown,
  queueReserved: (capabilityName: string, changes: Readonly<Record<string, JsonValue>>) => Promise<void>,
): (name: string) => CapabilityScope {
  return (name) =>
    Object.freeze({
      resources: resources.get(name) ?? noResources,
      sandbox,
      [queueReservedStateField]: (changes: Readonly<Record<string, JsonValue>>) => queueReserved(name, changes),
    });
}

/** The hooks of one kind the agent's capabilities declare, in declaration order, each with its owner and scope. */
function capabilityHooks<Kind extends keyof CapabilityHooks>(
  agent: Agent,
  kind: Kind,
  scopes: (name: string) => CapabilityScope,
): { readonly owner: string; readonly hook: NonNullable<CapabilityHooks[Kind]>; readonly scope: CapabilityScope }[] {
  return agent.capabilities.flatMap((capability) => {
    const hook = capability.hooks[kind];
    return hook
      ? [
          {
            owner: `capability "${capability.name}"`,
            hook: hook as NonNullable<CapabilityHooks[Kind]>,
            scope: scopes(capability.name),
          },
        ]
      : [];
  });
}

/** Runs the plugins' `sessionStart` hooks, then the capabilities', in order; the first failure fails the open. */
async function runSessionStart(
  agent: Agent,
  registry: Registry,
  scopes: (name: string) => CapabilityScope,
  info: SessionStartInfo,
): Promise<void> {
  const hooks = [
    ...registry.hooks.sessionStart.map((hook) => ({ owner: "a plugin", hook })),
    ...capabilityHooks(agent, "sessionStart", scopes).map(({ owner, hook, scope }) => ({
      owner,
      hook: (start: SessionStartInfo) => hook({ ...start, ...scope }),
    })),
  ];
  for (const { owner, hook } of hooks) {
    try {
      await abortable(
        Promise.resolve().then(() => hook(info)),
        info.signal,
      );
    } catch (error) {
      if (info.signal.aborted) throw error;
      throw new SessionHookError(
        `The sessionStart hook of ${owner} failed, so Session "${info.sessionId}" was not opened: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }
}

/** An abort gives one error however late it came: whatever failed because of it is its cause. */
function abortedOr(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted || (error instanceof CastellanError && error.code === "aborted")) return error;
  return new AbortedError("Opening the Session was aborted.", { cause: error });
}
