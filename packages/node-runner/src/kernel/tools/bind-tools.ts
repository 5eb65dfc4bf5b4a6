import type { HostedToolSpec, Program, ProgramTool, Tool } from "@castellan/harness";
import { ToolBindingError } from "../errors/errors.js";
import type { Registry } from "../plugins/registry.js";
import { compileInputValidator, type InputValidator } from "./validate-input.js";

/** A Program tool with its implementation: a local tool, or a provider-hosted one. */
export type BoundTool =
  | {
      readonly kind: "local";
      readonly name: string;
      readonly tool: Tool;
      readonly validate: InputValidator;
      readonly entry: ProgramTool;
    }
  | { readonly kind: "hosted"; readonly name: string; readonly spec: HostedToolSpec; readonly entry: ProgramTool };

/** The local tools the Program binds (declared ones, and those registered for its host references). */
export function localToolsOf(program: Program, registry: Registry): Tool[] {
  const tools: Tool[] = [];
  for (const entry of program.tools) {
    const tool = entry.declaration.kind === "tool" ? entry.declaration : registry.tools.get(entry.name);
    if (tool) tools.push(tool);
  }
  return tools;
}

/**
 * Binds every tool of the Program, visible or not: host references to registered tools, and
 * declared tools to themselves. Fails at Session open on a missing host tool, a name bound
 * both directly and by the host, or an input schema that is not valid (validate-input.ts).
 */
export function bindTools(program: Program, registry: Registry): ReadonlyMap<string, BoundTool> {
  const bound = new Map<string, BoundTool>();
  for (const entry of program.tools) {
    const declaration = entry.declaration;
    if (declaration.kind === "tool") {
      if (registry.tools.has(entry.name) || registry.hostedTools.has(entry.name)) {
        throw new ToolBindingError(
          "tool_ambiguous",
          `Tool "${entry.name}" is declared by agent "${program.agent.id}" and also registered by a plugin; bind it one way.`,
        );
      }
      bound.set(entry.name, {
        kind: "local",
        name: entry.name,
        tool: declaration,
        validate: compileInputValidator(declaration),
        entry,
      });
      continue;
    }
    const tool = registry.tools.get(entry.name);
    if (tool) {
      bound.set(entry.name, { kind: "local", name: entry.name, tool, validate: compileInputValidator(tool), entry });
      continue;
    }
    const hosted = registry.hostedTools.get(entry.name);
    if (hosted) {
      bound.set(entry.name, { kind: "hosted", name: entry.name, spec: hosted, entry });
      continue;
    }
    throw new ToolBindingError(
      "tool_not_found",
      `Agent "${program.agent.id}" refers to hostTool("${entry.name}"), but no plugin registers a tool of that name.`,
    );
  }
  return bound;
}
