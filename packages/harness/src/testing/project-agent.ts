import type { Agent } from "../agent.js";
import type { HostedToolCall, ToolReceipt, TurnContext } from "../context.js";
import { ResourcePendingError } from "../errors.js";
import { deepFreeze, frozenJsonCopy, type JsonObject, type JsonValue } from "../json.js";
import { buildProgram, type ProgramSection } from "../program.js";
import { type ProjectedSection, projectTurn } from "../projection.js";
import { type ResourceRequest, resolveResourceSpec } from "../resource.js";

/** The inputs of a projection under test. Omitted: turn 1, no params, initial state, no receipts. */
export interface ProjectAgentInput {
  readonly turn?: number;
  readonly params?: JsonObject;
  /** Overrides of committed state, merged over the declared initial values. */
  readonly state?: Readonly<Record<string, JsonValue>>;
  readonly toolCalls?: readonly ToolReceipt[];
  /** Hosted tool calls by tool name (e.g. `{ web_search: [...] }`). Default none. */
  readonly hostedToolCalls?: Readonly<Record<string, readonly HostedToolCall[]>>;
  /** Values of acquired resources, where a test supplies them. Others stay pending. */
  readonly resources?: ReadonlyMap<ResourceRequest<unknown, unknown>, unknown>;
}

/** What a pending section waits for: the binding kind's name and its `describe(spec)` reference. */
export interface PendingReference extends JsonObject {
  /** The binding kind's name, e.g. `instructions-file`. */
  readonly resource: string;
}

/**
 * A system-placed section whose text is read from a resource (its declared `resource`) that
 * only a Session acquires: shown in place, without text.
 */
export interface PendingSection extends Omit<ProjectedSection, "text"> {
  readonly pending: PendingReference;
}

/** What the model would be shown, plus what could not be known without acquisition. */
export interface AgentProjection {
  readonly system: string;
  readonly context: string;
  /** Non-empty sections and pending ones, in declaration order. Pending ones are not in `system`. */
  readonly sections: readonly (ProjectedSection | PendingSection)[];
  /** Visible tool names, in declaration order. */
  readonly tools: readonly string[];
  /** Resource kinds a section needed but that are acquired only by a Session, once per section. */
  readonly pendingResources: readonly string[];
}

/**
 * Projects an agent for one turn without a Runner, for tests of tool visibility and
 * instructions under given state and params. Sections that read a resource not supplied are
 * left out of the text and listed in `pendingResources`; a system-placed one that declares
 * that resource is also shown in `sections` as a {@link PendingSection}.
 */
export function projectAgent(agent: Agent, input: ProjectAgentInput = {}): AgentProjection {
  const program = buildProgram(agent);
  const pendingResources: string[] = [];
  const pendingSections: PendingSection[] = [];
  const state = deepFreeze(structuredClone({ ...program.initialState, ...(input.state ?? {}) }));
  const params = deepFreeze(structuredClone(input.params ?? {}));
  const receipts = input.toolCalls ?? [];
  const ctx: TurnContext = {
    turn: input.turn ?? 1,
    params,
    state,
    toolCalls: (name) => receipts.filter((receipt) => receipt.name === name),
    hostedToolCalls: (name) => input.hostedToolCalls?.[name] ?? [],
    resource<Value>(request: ResourceRequest<unknown, Value>): Value {
      if (input.resources?.has(request)) return input.resources.get(request) as Value;
      throw new ResourcePendingError(request.binding.name);
    },
  };
  // A section whose declared resource is not supplied is pending without running it.
  const pendingOn = (section: ProgramSection, request: ResourceRequest<unknown, unknown>) => () => {
    pendingResources.push(request.binding.name);
    if (section.placement === "system") {
      const reference = request.binding.describe?.(resolveResourceSpec(request.spec, params)) ?? {};
      const { id, name, source, placement, order } = section;
      const pending = frozenJsonCopy({ ...reference, resource: request.binding.name });
      pendingSections.push(Object.freeze({ id, name, source, placement, order, pending }));
    }
    return "";
  };
  // Other sections that need a pending resource are projected as if empty, and reported.
  const pendingSafe = (section: ProgramSection) => (context: TurnContext) => {
    try {
      return (section.text as (c: TurnContext) => string)(context);
    } catch (error) {
      if (error instanceof ResourcePendingError) {
        pendingResources.push(error.resourceKind);
        return "";
      }
      throw error;
    }
  };
  const projection = projectTurn(
    {
      ...program,
      sections: program.sections.map((section) => {
        if (section.resource && !input.resources?.has(section.resource)) {
          return { ...section, text: pendingOn(section, section.resource) };
        }
        return typeof section.text === "string" ? section : { ...section, text: pendingSafe(section) };
      }),
    },
    ctx,
  );
  const sections = [...projection.sections, ...pendingSections].sort((left, right) => left.order - right.order);
  return Object.freeze({
    system: projection.system,
    context: projection.context,
    sections: Object.freeze(sections),
    tools: Object.freeze(projection.tools.map((tool) => tool.name)),
    pendingResources: Object.freeze(pendingResources),
  });
}
