import type {
  AgentIdentity,
  BindingHandle,
  ChildAgentOutcome,
  JsonObject,
  ModelBinding,
  Program,
  Projection,
  ResourceRequest,
  RunEvent,
  StateView,
  TurnContext,
} from "@castellan/harness";
import { projectTurn, ResourcePendingError } from "@castellan/harness";
import { type ChildAgentSpec, delegationsOf } from "../children/child-tools.js";
import type { HistoryView } from "../history/session-history.js";
import type { SessionJournal } from "../journal/session-journal.js";
import type { BoundModel } from "../models/bound-model.js";
import type { PermissionPolicy } from "../permissions/decide.js";
import type { ParentToolCall, PermissionPreset } from "../permissions/types.js";
import type { BeforeModelHook, StateChangedHook, TurnStartHook } from "../plugins/types.js";
import { type BuiltinPromptOverrides, overriddenSectionText } from "../prompts/builtin-prompts.js";
import { type ProjectedSkill, projectSkills } from "../skills/projection.js";
import type { SessionSkills } from "../skills/session-skills.js";
import type { ChildUsage } from "../store/records.js";
import type { BoundTool } from "../tools/bind-tools.js";
import type { SessionModel } from "./session-model.js";
import type { UsageBudget } from "./usage-budget.js";

export type { Emit } from "../journal/session-journal.js";

/** The lifecycle hooks a Run calls, in registration order. */
export interface RunHooks {
  readonly beforeModel: readonly BeforeModelHook[];
  readonly turnStart: readonly TurnStartHook[];
  readonly stateChanged: readonly StateChangedHook[];
}

/** What inspection is told while Runs go on. */
export interface InspectionObserver {
  /** Every successful projection, with the Run and turn it was made for (none: the initial one). */
  observeProjection(projection: Projection, at: { readonly runId?: string; readonly turn: number }): void;
  /** The model of each model call. */
  observeModel(model: BoundModel): void;
}

/**
 * What a Run is given of its Session: read-only views of what was admitted (the Program, its
 * bound tools and models, the acquired resources, the hooks and permission policy) and of the
 * history, and the journal, the one way to save records and report the events that follow
 * them. Run code reads the history and writes through the journal; it never changes the fold.
 */
export interface SessionContext {
  readonly sessionId: string;
  readonly agent: AgentIdentity;
  readonly program: Program;
  readonly params: JsonObject;
  readonly history: HistoryView;
  readonly journal: SessionJournal;
  readonly tools: ReadonlyMap<string, BoundTool>;
  /** The Session's model: the declared one. A Run may use another (`RunOptions.model`). */
  readonly model: SessionModel;
  /** `contextBudget.model`, resolved when the Session opened; undefined: summaries use the Run's model. */
  readonly compactionModel: SessionModel | undefined;
  readonly hooks: RunHooks;
  readonly policy: PermissionPolicy;
  /** The value of every acquired resource, by its declared request. */
  readonly resources: ReadonlyMap<ResourceRequest<unknown, unknown>, unknown>;
  /** The acquired resources of each capability, by capability name, in declaration order. */
  readonly capabilityResources: ReadonlyMap<string, readonly BindingHandle[]>;
  /** The `sandbox` value of the Session's lease; undefined when none is declared. */
  readonly sandbox: unknown;
  readonly limits: RunLimits;
  readonly contextBudget: HarnessContextBudget;
  /** The host's replacements of built-in sections; empty for none. */
  readonly builtinPrompts: BuiltinPromptOverrides;
  /** The Session's skills; undefined when it has none. */
  readonly skills: SessionSkills | undefined;
  /**
   * Runs one `ctx.runAgent` call as a child Session of the same Runner (its registrations, the
   * parent's hooks, preset and approval) and settles once that Session is closed.
   */
  readonly runChild: (
    spec: ChildAgentSpec,
    call: ChildAgentCall,
    emit: ((event: RunEvent) => void) | undefined,
  ) => Promise<ChildAgentOutcome>;
  /** The permission preset child Sessions inherit. */
  readonly preset: PermissionPreset | undefined;
  /** Set for a child agent's Session. */
  readonly child?: ChildScope;
  readonly inspection: InspectionObserver;
}

/** What a child Session is opened under. */
export interface ChildScope {
  readonly parent: ParentToolCall;
  readonly grants: ReadonlySet<string>;
  /** How many more delegation levels this Session may open (0: its own child tools are hidden). */
  readonly remainingDepth: number;
}

/** One `ctx.runAgent` call, as the parent's Run has it. */
export interface ChildAgentCall {
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  /** The child Session's id: `<parent>/child/<toolCallId>`, with `-<n>` after a call's first child. */
  readonly childSessionId: string;
  readonly task: string;
  readonly signal: AbortSignal;
  /** Given each model call's usage of the child, for the delegating call's receipt. */
  readonly onUsage: (usage: ChildUsage) => void;
  /** What is left of the parent Run's budget: the child's Run may spend at most this. */
  readonly budget?: UsageBudget;
}

/** Bounds of every Run. */
export interface RunLimits {
  /** Model calls per Run before it fails with `max_turns`. Default 200. */
  readonly maxTurns: number;
  /** How long an aborted Run waits for running tools to stop before recording them as unknown. Default 10,000 ms. */
  readonly abortGraceMs: number;
}

export const defaultRunLimits: RunLimits = Object.freeze({ maxTurns: 200, abortGraceMs: 10_000 });

/**
 * When a conversation is compacted. The budget is the model's context window (from its
 * binding, or `contextWindow` here) less `reserveOutputTokens`; a request whose estimated
 * size passes `threshold` of it is preceded by a compaction.
 */
export interface HarnessContextBudget {
  /** Overrides the model binding's context window, in tokens. Without either, nothing is compacted automatically. */
  readonly contextWindow?: number;
  /** Tokens kept free for the answer. Default 4,096. */
  readonly reserveOutputTokens: number;
  /** The share of the budget a request may fill before compaction. Default 0.8. */
  readonly threshold: number;
  /** The share of the budget kept verbatim after the summary (the most recent messages). Default 0.25. */
  readonly keepRecent: number;
  /**
   * The model that writes summaries: a registered name (or one the resolver resolves) or a
   * binding. An unknown name fails the Session's opening with `model_not_found`. Default: the
   * model of the Run being compacted.
   */
  readonly model?: string | ModelBinding;
  /** The instruction the summary request is given. Default: a built-in summary instruction. */
  readonly instructions?: string;
}

export const defaultContextBudget: HarnessContextBudget = Object.freeze({
  reserveOutputTokens: 4_096,
  threshold: 0.8,
  keepRecent: 0.25,
});

/** Committed state: the declared initial values with every committed write over them. */
export function committedState(context: SessionContext): StateView {
  return context.history.state.view(context.program.initialState);
}

/** The turn context sections, `enabled` and tools see. */
export function turnContext(context: SessionContext, turn: number): TurnContext {
  return {
    turn,
    params: context.params,
    state: committedState(context),
    toolCalls: (name) => context.history.toolCalls(name),
    hostedToolCalls: (name) => context.history.hostedToolCalls(name),
    resource<Value>(request: ResourceRequest<unknown, Value>): Value {
      if (!context.resources.has(request)) throw new ResourcePendingError(request.binding.name);
      return context.resources.get(request) as Value;
    },
  };
}

/**
 * Projects the Program for a turn with the Session's bindings: a `hostTool` reference is
 * visible only when the registered tool's own `enabled` agrees.
 */
export function projectSession(
  context: SessionContext,
  turn: number,
): Projection & { readonly skills?: readonly ProjectedSkill[] } {
  const ctx = turnContext(context, turn);
  const projected = projectTurn(context.program, ctx, {
    sectionText: (section) => overriddenSectionText(context.builtinPrompts, section),
    implementationEnabled: (tool) => {
      const bound = context.tools.get(tool.name);
      return bound?.kind === "local" ? bound.tool.enabled : undefined;
    },
  });
  const projection = context.child ? withinGrants(projected, context.child) : projected;
  return context.skills ? projectSkills(projection, context.skills, ctx) : projection;
}

/** A child's projection: only its granted tools, and no tool that delegates once no delegation level is left. */
function withinGrants(projection: Projection, child: ChildScope): Projection {
  const tools = projection.tools.filter(
    (tool) => child.grants.has(tool.name) && !(child.remainingDepth <= 0 && delegationsOf(tool.declaration).length > 0),
  );
  return tools.length === projection.tools.length
    ? projection
    : Object.freeze({ ...projection, tools: Object.freeze(tools) });
}
