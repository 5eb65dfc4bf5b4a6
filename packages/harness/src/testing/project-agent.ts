import type { Agent } from "../agent.js";
import type { ToolReceipt, TurnContext } from "../context.js";
import { ResourcePendingError } from "../errors.js";
import { deepFreeze, type JsonObject, type JsonValue } from "../json.js";
import { buildProgram } from "../program.js";
import { type ProjectedSection, projectTurn } from "../projection.js";
import type { ResourceRequest } from "../resource.js";

/** The inputs of a projection under test. Omitted: turn 1, no params, initial state, no receipts. */
export interface ProjectAgentInput {
  readonly turn?: number;
  readonly params?: JsonObject;
  /** Overrides of committed state, merged over the declared initial values. */
  readonly state?: Readonly<Record<string, JsonValue>>;
  readonly toolCalls?: readonly ToolReceipt[];
  /** Values of acquired resources, where a test supplies them. Others stay pending. */
  readonly resources?: ReadonlyMap<ResourceRequest<unknown, unknown>, unknown>;
}

/** What the model would be shown, plus what could not be known without acquisition. */
export interface AgentProjection {
  readonly system: string;
  readonly context: string;
  readonly sections: readonly ProjectedSection[];
  /** Visible tool names, in declaration order. */
  readonly tools: readonly string[];
  /** Resource kinds a section needed but that are acquired only by a Session. */
  readonly pendingResources: readonly string[];
}

/**
 * Projects an agent for one turn without a Runner, for tests of tool visibility and
 * instructions under given state and params. Sections that read a resource not supplied are
 * left out and listed in `pendingResources`.
 */
export function projectAgent(agent: Agent, input: ProjectAgentInput = {}): AgentProjection {
  const program = buildProgram(agent);
  const pendingResources: string[] = [];
  const state = deepFreeze(structuredClone({ ...program.initialState, ...(input.state ?? {}) }));
  const params = deepFreeze(structuredClone(input.params ?? {}));
  const receipts = input.toolCalls ?? [];
  const ctx: TurnContext = {
    turn: input.turn ?? 1,
    params,
    state,
    toolCalls: (name) => receipts.filter((receipt) => receipt.name === name),
    resource<Value>(request: ResourceRequest<unknown, Value>): Value {
      if (input.resources?.has(request)) return input.resources.get(request) as Value;
      throw new ResourcePendingError(request.binding.name);
    },
  };
  // Sections that need a pending resource are projected as if empty, and reported.
  const pendingSafe = {
    ...program,
    sections: program.sections.map((section) =>
      typeof section.text === "string"
        ? section
        : {
            ...section,
            text: (context: TurnContext) => {
              try {
                return (section.text as (c: TurnContext) => string)(context);
              } catch (error) {
                if (error instanceof ResourcePendingError) {
                  pendingResources.push(error.resourceKind);
                  return "";
                }
                throw error;
              }
            },
          },
    ),
  };
  const projection = projectTurn(pendingSafe, ctx);
  return Object.freeze({
    system: projection.system,
    context: projection.context,
    sections: projection.sections,
    tools: Object.freeze(projection.tools.map((tool) => tool.name)),
    pendingResources: Object.freeze(pendingResources),
  });
}
