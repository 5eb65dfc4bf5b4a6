import type { Capability } from "./capability.js";
import type { StateShape, StateView } from "./context.js";
import { DeclarationError } from "./errors.js";
import { agentSections, type Instructions } from "./instructions.js";
import { deepFreeze, findNonJson, type JsonValue } from "./json.js";
import { isModelRuntime, type ModelBinding } from "./model.js";
import { assertNoReservedKeys } from "./reserved-state.js";
import type { SandboxDeclaration } from "./sandbox.js";
import { checkSkillDeclarations, type SkillDeclaration } from "./skill.js";
import { isToolDeclaration, type ToolDeclaration } from "./tool.js";

/** The options of `defineAgent`; `State` is the type of its declared `state`. */
export interface AgentDefinition<State extends StateShape = StateView> {
  /** A bound model, or the name of one the host registers (`host.registerModel`). */
  readonly model: ModelBinding | string;
  /** Sections whose functions read `ctx.state` typed by `State`. */
  readonly instructions?: Instructions<State>;
  readonly tools?: readonly ToolDeclaration[];
  readonly capabilities?: readonly Capability[];
  readonly skills?: readonly SkillDeclaration[];
  readonly sandbox?: SandboxDeclaration;
  /** State keys and their initial JSON values; their types are `State` (see `defineState` to type tools by them). */
  readonly state?: State;
  /** The parameter keys every Session must supply. */
  readonly params?: readonly string[];
}

/** A declared agent: a frozen value, the same for every Session that runs it. */
export interface Agent<State extends StateShape = StateView> extends AgentDefinition<State> {
  readonly kind: "agent";
  readonly id: string;
  readonly tools: readonly ToolDeclaration[];
  readonly capabilities: readonly Capability[];
  readonly skills: readonly SkillDeclaration[];
  readonly state: State;
  readonly params: readonly string[];
}

/** The declared state type of an agent: `StateOf<typeof Reporter>`. */
export type StateOf<A> = A extends Agent<infer State> ? State : StateView;

const agentId = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/**
 * Declares an agent. Declaring connects to nothing and reads nothing. The type of `state` types
 * `ctx.state` in its instruction sections; tools declared apart from it are typed by
 * `defineState` or `defineTool<Input, StateOf<...>>`.
 */
export function defineAgent<State extends StateShape = StateView>(
  id: string,
  definition: AgentDefinition<State>,
): Agent<State>;
export function defineAgent(id: string, definition: AgentDefinition): Agent {
  if (typeof id !== "string" || !agentId.test(id)) {
    throw new DeclarationError(
      `defineAgent: id ${JSON.stringify(id)} must be 1-128 letters, digits, ".", "_", ":", "/" or "-", starting with a letter or digit.`,
    );
  }
  const where = `defineAgent("${id}")`;
  const model = definition?.model;
  if (!(typeof model === "string" && model.length > 0) && !isModelRuntime(model)) {
    throw new DeclarationError(`${where}: model must be a model binding or the name of a registered model.`);
  }
  if (typeof model !== "string" && typeof (model as ModelBinding).specifier !== "string") {
    throw new DeclarationError(`${where}: a directly declared model needs a specifier ({ specifier, ...runtime }).`);
  }
  agentSections(definition.instructions, where);
  const tools = definition.tools ?? [];
  if (!Array.isArray(tools) || !tools.every(isToolDeclaration)) {
    throw new DeclarationError(`${where}: tools must be an array of defineTool or hostTool values.`);
  }
  const capabilities = definition.capabilities ?? [];
  if (!Array.isArray(capabilities) || !capabilities.every((item) => item?.kind === "capability")) {
    throw new DeclarationError(`${where}: capabilities must be an array of capability values.`);
  }
  const skills = checkSkillDeclarations(definition.skills, where);
  const params = definition.params ?? [];
  if (!Array.isArray(params) || !params.every((key) => typeof key === "string" && key.length > 0)) {
    throw new DeclarationError(`${where}: params must be an array of parameter names.`);
  }
  if (new Set(params).size !== params.length) throw new DeclarationError(`${where}: params lists a name twice.`);
  const state = definition.state ?? {};
  if (state === null || typeof state !== "object" || Array.isArray(state)) {
    throw new DeclarationError(`${where}: state must be an object of keys and initial JSON values.`);
  }
  const nonJson = findNonJson(state);
  if (nonJson) throw new DeclarationError(`${where}: state is not JSON at ${nonJson}.`);
  assertNoReservedKeys(state as Readonly<Record<string, JsonValue>>, where);
  const sandbox = definition.sandbox;
  if (
    sandbox !== undefined &&
    typeof sandbox !== "string" &&
    (typeof sandbox?.specifier !== "string" || typeof sandbox.open !== "function")
  ) {
    throw new DeclarationError(`${where}: sandbox must be a sandbox name or { specifier, open }.`);
  }
  return Object.freeze({
    ...definition,
    kind: "agent",
    id,
    model,
    tools: Object.freeze([...tools]),
    capabilities: Object.freeze([...capabilities]),
    skills: Object.freeze([...skills]),
    state: deepFreeze(structuredClone(state)),
    params: Object.freeze([...params]),
  });
}
