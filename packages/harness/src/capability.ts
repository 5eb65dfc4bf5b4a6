import { type Enabled, isEnabledOption } from "./enabled.js";
import { DeclarationError } from "./errors.js";
import { assertSection, type CapabilitySection } from "./instructions.js";
import { deepFreeze, findNonJson, type JsonValue } from "./json.js";
import { type CapabilityHooks, capabilityHookNames } from "./lifecycle.js";
import { assertNoReservedKeys, checkReservedState, reservedStateField } from "./reserved-state.js";
import type { ResourceRequest } from "./resource.js";
import type { SandboxDeclaration } from "./sandbox.js";
import { checkSkillDeclarations, type SkillDeclaration } from "./skill.js";
import { isToolDeclaration, type ToolDeclaration } from "./tool.js";

/** The fields of a capability: a named bundle of tools, sections, state, resources and a sandbox. */
export interface CapabilityDefinition {
  readonly name: string;
  readonly tools?: readonly ToolDeclaration[];
  /** Sections render after the agent's own, with the section name as a heading. */
  readonly instructions?: readonly CapabilitySection[];
  /** State keys and their initial JSON values; they share one flat space with the agent's. */
  readonly state?: Readonly<Record<string, JsonValue>>;
  /** Session-scoped resources, acquired in order when a Session opens and released in reverse. */
  readonly resources?: readonly ResourceRequest<any, any>[];
  readonly sandbox?: SandboxDeclaration;
  /** Hides all of the capability's tools and sections for a turn. Default true. */
  readonly enabled?: Enabled;
  /** Lifecycle hooks, run for each Session of an agent that declares the capability. Default none. */
  readonly hooks?: CapabilityHooks;
  /** Skills the capability offers (bindings, or names the host resolves); they hide with it. Default none. */
  readonly skills?: readonly SkillDeclaration[];
  /** Reserved state keys (`castellan.`) and their initial values: Castellan's own factories only. Default none. */
  readonly [reservedStateField]?: Readonly<Record<string, JsonValue>>;
}

/** A declared capability: a frozen value. */
export interface Capability extends CapabilityDefinition {
  readonly kind: "capability";
  readonly tools: readonly ToolDeclaration[];
  readonly instructions: readonly CapabilitySection[];
  readonly state: Readonly<Record<string, JsonValue>>;
  readonly resources: readonly ResourceRequest<any, any>[];
  readonly hooks: CapabilityHooks;
  readonly skills: readonly SkillDeclaration[];
}

/** Declares a capability. Declaring acquires nothing. */
export function defineCapability(definition: CapabilityDefinition): Capability {
  if (typeof definition?.name !== "string" || definition.name.length === 0) {
    throw new DeclarationError("defineCapability: name must be a non-empty string.");
  }
  const where = `capability "${definition.name}"`;
  const tools = definition.tools ?? [];
  if (!Array.isArray(tools) || !tools.every(isToolDeclaration)) {
    throw new DeclarationError(`${where}: tools must be an array of defineTool or hostTool values.`);
  }
  const resources = definition.resources ?? [];
  if (!resources.every((request) => request?.kind === "resource")) {
    throw new DeclarationError(`${where}: resources must be made with resource(kind, spec).`);
  }
  const instructions = definition.instructions ?? [];
  for (const section of instructions) {
    assertSection(section?.name, section?.text, where);
    if (section.placement !== undefined && section.placement !== "system" && section.placement !== "context") {
      throw new DeclarationError(`${where}: section "${section.name}" placement must be "system" or "context".`);
    }
    if (section.resource !== undefined && !resources.includes(section.resource)) {
      throw new DeclarationError(
        `${where}: section "${section.name}" reads a resource the capability does not declare.`,
      );
    }
  }
  const state = definition.state ?? {};
  const nonJson = findNonJson(state);
  if (nonJson) throw new DeclarationError(`${where}: state is not JSON at ${nonJson}.`);
  assertNoReservedKeys(state, where);
  const reserved = checkReservedState(definition[reservedStateField], where);
  if (!isEnabledOption(definition.enabled)) {
    throw new DeclarationError(`${where}: enabled must be a boolean or a function of the turn context.`);
  }
  const skills = checkSkillDeclarations(definition.skills, where);
  const hooks = definition.hooks ?? {};
  if (hooks === null || typeof hooks !== "object" || Array.isArray(hooks)) {
    throw new DeclarationError(`${where}: hooks must be an object of { ${capabilityHookNames.join(", ")} }.`);
  }
  for (const [name, hook] of Object.entries(hooks)) {
    if (!(capabilityHookNames as readonly string[]).includes(name)) {
      throw new DeclarationError(
        `${where}: hooks.${name} is not a lifecycle hook; use ${capabilityHookNames.join(", ")}.`,
      );
    }
    if (hook !== undefined && typeof hook !== "function")
      throw new DeclarationError(`${where}: hooks.${name} must be a function.`);
  }
  return Object.freeze({
    ...definition,
    kind: "capability",
    tools: Object.freeze([...tools]),
    instructions: Object.freeze(instructions.map((section) => Object.freeze({ ...section }))),
    state: deepFreeze(structuredClone(state)),
    resources: Object.freeze([...resources]),
    hooks: Object.freeze({ ...hooks }),
    skills: Object.freeze([...skills]),
    [reservedStateField]: deepFreeze(structuredClone(reserved)),
  });
}
