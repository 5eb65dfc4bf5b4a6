import type { Agent, JsonObject, Program, ResourceRequest, RunEvent, TurnContext } from "@castellan/harness";
import { ResourcePendingError } from "@castellan/harness";
import type { SessionHistory } from "../history/session-history.js";
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
  readonly model: SessionModel;
  readonly registry: Registry;
  readonly policy: PermissionPolicy;
  readonly resources: ReadonlyMap<ResourceRequest<unknown, unknown>, unknown>;
  readonly limits: RunLimits;
  /** Makes records durable (when there is a store), then folds them into the history. */
  persist(records: readonly SessionRecord[]): Promise<void>;
}

/** Bounds of every Run. */
export interface RunLimits {
  /** Model calls per Run before it fails with `max_turns`. Default 200. */
  readonly maxTurns: number;
  /** How long an aborted Run waits for running tools to stop before recording them as unknown. Default 10,000 ms. */
  readonly abortGraceMs: number;
}

export const defaultRunLimits: RunLimits = Object.freeze({ maxTurns: 200, abortGraceMs: 10_000 });

/** The turn context sections, `enabled` and tools see. State is the declared initial state until writes exist. */
export function turnContext(core: SessionCore, turn: number): TurnContext {
  return {
    turn,
    params: core.params,
    state: core.program.initialState,
    toolCalls: (name) => core.history.toolCalls(name),
    resource<Value>(request: ResourceRequest<unknown, Value>): Value {
      if (!core.resources.has(request)) throw new ResourcePendingError(request.binding.name);
      return core.resources.get(request) as Value;
    },
  };
}

/** Reports a Run's events. */
export type Emit = (event: RunEvent) => void;
