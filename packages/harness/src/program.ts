import type { Agent } from "./agent.js";
import type { Capability } from "./capability.js";
import type { Enabled } from "./enabled.js";
import { DeclarationError } from "./errors.js";
import { agentSections, type Placement, type Section } from "./instructions.js";
import type { JsonValue } from "./json.js";
import { reservedStateField } from "./reserved-state.js";
import type { ResourceRequest } from "./resource.js";
import type { SandboxDeclaration } from "./sandbox.js";
import type { ToolDeclaration } from "./tool.js";

/** Who declared a section, tool, state key, resource or sandbox. */
export type DeclarationSource = { readonly kind: "agent" } | { readonly kind: "capability"; readonly name: string };

/** An instruction section of the Program. */
export interface ProgramSection {
  /** `agent:<name>` or `capability:<capability>:<name>`. */
  readonly id: string;
  readonly name: string;
  readonly source: DeclarationSource;
  readonly placement: Placement;
  /** Declaration order across the agent and its capabilities. */
  readonly order: number;
  readonly text: Section;
  readonly capability?: Capability;
  /** The resource the text is read from, where the capability's section names one. */
  readonly resource?: ResourceRequest<any, any>;
}

/** A tool of the Program, before host references are bound. */
export interface ProgramTool {
  readonly name: string;
  readonly declaration: ToolDeclaration;
  readonly source: DeclarationSource;
  readonly capability?: Capability;
}

/** A resource of the Program, in acquisition order. */
export interface ProgramResource {
  readonly request: ResourceRequest<any, any>;
  readonly source: DeclarationSource;
}

/** An agent declaration flattened for one Session: what the Runner projects each turn. */
export interface Program {
  readonly agent: Agent;
  readonly sections: readonly ProgramSection[];
  readonly tools: readonly ProgramTool[];
  /** Every state key and its initial value: the agent's and its capabilities' (reserved keys included). */
  readonly initialState: Readonly<Record<string, JsonValue>>;
  /** The reserved (`castellan.`) keys, each with the built-in capability that declares it: only its tools write it. */
  readonly reservedState: Readonly<Record<string, DeclarationSource>>;
  readonly resources: readonly ProgramResource[];
  readonly sandbox?: { readonly declaration: SandboxDeclaration; readonly source: DeclarationSource };
}

const agentSource: DeclarationSource = Object.freeze({ kind: "agent" });

function describe(source: DeclarationSource): string {
  return source.kind === "agent" ? "the agent" : `capability "${source.name}"`;
}

/** What a Session adds to a declaration when it opens. */
export interface ProgramOptions {
  /**
   * Tools a capability's resources found at acquisition (an MCP server's catalog), by
   * capability name: each joins that capability after its declared tools. Default none.
   */
  readonly contributedTools?: ReadonlyMap<string, readonly ToolDeclaration[]>;
  /** Capabilities the runtime adds after the agent's own (Castellan's internal skill tools). Default none. */
  readonly internalCapabilities?: readonly Capability[];
}

/**
 * Flattens an agent and its capabilities into a Program. Fails with a DeclarationError on a
 * tool name, state key, capability name or sandbox declared twice.
 */
export function buildProgram(agent: Agent, options: ProgramOptions = {}): Program {
  const sections: ProgramSection[] = [];
  const tools: ProgramTool[] = [];
  const toolOwners = new Map<string, DeclarationSource>();
  const initialState: Record<string, JsonValue> = {};
  const stateOwners = new Map<string, DeclarationSource>();
  const reservedState: Record<string, DeclarationSource> = {};
  const resources: ProgramResource[] = [];
  let sandbox: Program["sandbox"];

  const addTool = (declaration: ToolDeclaration, source: DeclarationSource, capability?: Capability) => {
    const owner = toolOwners.get(declaration.name);
    if (owner) {
      throw new DeclarationError(
        `Agent "${agent.id}": tool "${declaration.name}" is declared by ${describe(owner)} and by ${describe(source)}.`,
      );
    }
    toolOwners.set(declaration.name, source);
    tools.push(Object.freeze({ name: declaration.name, declaration, source, ...(capability ? { capability } : {}) }));
  };
  const addState = (state: Readonly<Record<string, JsonValue>>, source: DeclarationSource) => {
    for (const [key, value] of Object.entries(state)) {
      const owner = stateOwners.get(key);
      if (owner) {
        throw new DeclarationError(
          `Agent "${agent.id}": state key "${key}" is declared by ${describe(owner)} and by ${describe(source)}.`,
        );
      }
      stateOwners.set(key, source);
      initialState[key] = value;
    }
  };
  const setSandbox = (declaration: SandboxDeclaration | undefined, source: DeclarationSource) => {
    if (declaration === undefined) return;
    if (sandbox) {
      throw new DeclarationError(
        `Agent "${agent.id}": a sandbox is declared by ${describe(sandbox.source)} and by ${describe(source)}; an agent has one sandbox.`,
      );
    }
    sandbox = Object.freeze({ declaration, source });
  };

  for (const [name, text] of agentSections(agent.instructions, `Agent "${agent.id}"`)) {
    sections.push(
      Object.freeze({
        id: `agent:${name}`,
        name,
        source: agentSource,
        placement: "system",
        order: sections.length,
        text,
      }),
    );
  }
  for (const tool of agent.tools) addTool(tool, agentSource);
  addState(agent.state, agentSource);
  setSandbox(agent.sandbox, agentSource);

  const capabilityNames = new Set<string>();
  for (const capability of [...agent.capabilities, ...(options.internalCapabilities ?? [])]) {
    if (capabilityNames.has(capability.name)) {
      throw new DeclarationError(`Agent "${agent.id}": capability "${capability.name}" is declared twice.`);
    }
    capabilityNames.add(capability.name);
    const source: DeclarationSource = Object.freeze({ kind: "capability", name: capability.name });
    for (const section of capability.instructions) {
      sections.push(
        Object.freeze({
          id: `capability:${capability.name}:${section.name}`,
          name: section.name,
          source,
          placement: section.placement ?? "system",
          order: sections.length,
          text: section.text,
          capability,
          ...(section.resource ? { resource: section.resource } : {}),
        }),
      );
    }
    for (const tool of capability.tools) addTool(tool, source, capability);
    for (const tool of options.contributedTools?.get(capability.name) ?? []) addTool(tool, source, capability);
    addState(capability.state, source);
    const reserved = (capability as { [reservedStateField]?: Readonly<Record<string, JsonValue>> })[reservedStateField];
    if (reserved) {
      addState(reserved, source);
      for (const key of Object.keys(reserved)) reservedState[key] = source;
    }
    for (const request of capability.resources) resources.push(Object.freeze({ request, source }));
    setSandbox(capability.sandbox, source);
  }

  return Object.freeze({
    agent,
    sections: Object.freeze(sections),
    tools: Object.freeze(tools),
    initialState: Object.freeze(initialState),
    reservedState: Object.freeze(reservedState),
    resources: Object.freeze(resources),
    ...(sandbox ? { sandbox } : {}),
  });
}

/** Evaluates an `enabled` option for a turn. */
export function isEnabled(enabled: Enabled | undefined, ctx: Parameters<Extract<Enabled, Function>>[0]): boolean {
  if (enabled === undefined) return true;
  if (typeof enabled === "boolean") return enabled;
  return enabled(ctx) === true;
}
