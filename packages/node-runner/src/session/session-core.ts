import type {
  Agent,
  BindingHandle,
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
import type { SessionHistory } from "../history/session-history.js";
import type { BoundModel } from "../models/bound-model.js";
import type { SessionModel } from "../models/session-model.js";
import type { PermissionPolicy } from "../permissions/decide.js";
import type { Registry } from "../plugins/registry.js";
import type { SessionRecord } from "../store/records.js";
import type { BoundTool } from "../tools/bind-tools.js";

/** What a Run needs of its Session: the admitted Program and its bindings, and the history. */
export interface SessionCore {
  readonly agent: Agent;
  readonly program: Program;
  readonly sessionId: string;
  readonly params: JsonObject;
  readonly history: SessionHistory;
  readonly tools: ReadonlyMap<string, BoundTool>;
  /** The Session's model: the declared one. A Run may use another (`RunOptions.model`). */
  readonly model: SessionModel;
  /** `contextBudget.model`, resolved when the Session opened; undefined: summaries use the Run's model. */
  readonly compactionModel: SessionModel | undefined;
  readonly registry: Registry;
  readonly policy: PermissionPolicy;
  /** The value of every acquired resource, by its declared request. */
  readonly resources: ReadonlyMap<ResourceRequest<unknown, unknown>, unknown>;
  /** The acquired resources of each capability, by capability name, in declaration order. */
  readonly capabilityResources: ReadonlyMap<string, readonly BindingHandle[]>;
  /** The `sandbox` value of the Session's lease; undefined when none is declared. */
  readonly sandbox: unknown;
  readonly limits: RunLimits;
  readonly contextBudget: HarnessContextBudget;
  /** The model of the latest model call, for inspection; undefined before the first. */
  lastModel: BoundModel | undefined;
  /** Called with every successful projection (inspection keeps them). */
  readonly observeProjection: (projection: Projection, at: { readonly runId?: string; readonly turn: number }) => void;
  /**
   * Makes records durable (when there is a store), then folds them into the history. Calls
   * are serialized: each append completes, in call order, before the next starts.
   */
  persist(records: readonly SessionRecord[]): Promise<void>;
  /**
   * Starts an append without waiting for it to be durable: resolves, in the same order as
   * `persist`, once the records are folded into the history, with `durable`, which settles
   * when they are saved. What reports them must wait for `durable`. If it rejects, every later
   * `persist` rejects with its error (the history already holds records that were not saved).
   */
  persistAhead(records: readonly SessionRecord[]): Promise<{ readonly durable: Promise<void> }>;
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
export function committedState(core: SessionCore): StateView {
  return core.history.state.view(core.program.initialState);
}

/** The turn context sections, `enabled` and tools see. */
export function turnContext(core: SessionCore, turn: number): TurnContext {
  return {
    turn,
    params: core.params,
    state: committedState(core),
    toolCalls: (name) => core.history.toolCalls(name),
    resource<Value>(request: ResourceRequest<unknown, Value>): Value {
      if (!core.resources.has(request)) throw new ResourcePendingError(request.binding.name);
      return core.resources.get(request) as Value;
    },
  };
}

/**
 * Projects the Program for a turn with the Session's bindings: a `hostTool` reference is
 * visible only when the registered tool's own `enabled` agrees.
 */
export function projectSession(core: SessionCore, turn: number): Projection {
  return projectTurn(core.program, turnContext(core, turn), {
    implementationEnabled: (tool) => {
      const bound = core.tools.get(tool.name);
      return bound?.kind === "local" ? bound.tool.enabled : undefined;
    },
  });
}

/** Reports a Run's events. */
export type Emit = (event: RunEvent) => void;
