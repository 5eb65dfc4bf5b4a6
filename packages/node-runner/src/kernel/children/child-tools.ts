import type { Agent, JsonObject, Tool, ToolDeclaration } from "@castellan/harness";
import type { ChildUsage } from "../store/records.js";

/** What a child-agent tool runs: its child, grants and bounds. */
export interface ChildAgentSpec {
  readonly child: Agent;
  readonly toolGrants: readonly string[];
  readonly maxTurns: number;
  readonly maxDepth: number;
  readonly maxDurationMs: number;
  readonly maxResultBytes: number;
  readonly params: JsonObject | ((parentParams: JsonObject) => JsonObject) | undefined;
}

// The Runner runs a child-agent tool itself (it opens a Session on its own registrations); the
// tool value only carries what to run. Internal.
const specs = new WeakMap<object, ChildAgentSpec>();

/** Marks `tool` as the child-agent tool of `spec`. */
export function withChildAgentSpec<T extends Tool>(tool: T, spec: ChildAgentSpec): T {
  specs.set(tool, spec);
  return tool;
}

/** The spec of a child-agent tool, if `tool` is one. */
export function childAgentSpecOf(tool: ToolDeclaration | Tool): ChildAgentSpec | undefined {
  return specs.get(tool);
}

// The usage of a child's model calls, carried from the call's result to its receipt. Internal.
const usages = new WeakMap<object, readonly ChildUsage[]>();

/** Attaches the child's usage to the call's result. */
export function withChildUsage<T extends object>(result: T, usage: readonly ChildUsage[]): T {
  if (usage.length > 0) usages.set(result, Object.freeze([...usage]));
  return result;
}

/** The child usage a result carries, if any. */
export function childUsageOf(result: object): readonly ChildUsage[] | undefined {
  return usages.get(result);
}

/** True for a child-agent tool. */
export function isChildAgentTool(tool: ToolDeclaration | Tool): boolean {
  return specs.has(tool);
}

// Tools a child may find only when its Session opens: those a capability's resource lease
// contributes (an MCP server's), and the skill tools, present once skills are found.
const foundAtOpen: ReadonlySet<string> = new Set(["activate_skill", "read_skill_resource"]);

/**
 * The grants of `spec` that can never name a tool of the child: not declared by it or its
 * capabilities, and not contributable when it opens (a child with a resource-acquiring
 * capability may get more tools then; those grants are checked when the child opens).
 */
export function staticallyUnknownGrants(spec: ChildAgentSpec, declared: readonly string[]): readonly string[] {
  const leases = spec.child.capabilities.some((capability) => capability.resources.length > 0);
  return spec.toolGrants.filter((name) => !declared.includes(name) && !foundAtOpen.has(name) && !leases);
}
