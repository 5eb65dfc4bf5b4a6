import type { Agent, JsonObject, RunAgentOptions, ToolDeclaration, ToolDelegation } from "@castellan/harness";

/** What one `ctx.runAgent` call runs: its child, grants and bounds, checked. */
export interface ChildAgentSpec {
  readonly child: Agent;
  readonly toolGrants: readonly string[];
  readonly maxTurns: number;
  readonly maxDepth: number;
  readonly maxDurationMs: number;
  readonly maxResultBytes: number;
  readonly params: JsonObject | ((parentParams: JsonObject) => JsonObject) | undefined;
}

/** Longest task a child agent is given, in bytes. */
export const maxChildTaskBytes = 32_768;

/**
 * Checks `options` for `child` and applies the defaults; `fail` makes the caller's typed error
 * (a `DeclarationError` for `childAgent`, a `ToolInputError` in `ctx.runAgent`) from a message.
 */
export function resolveChildAgentSpec(
  child: Agent,
  options: RunAgentOptions,
  where: string,
  fail: (message: string) => Error,
): ChildAgentSpec {
  if (child?.kind !== "agent") throw fail(`${where}: the child must be made with defineAgent.`);
  const grants = options?.toolGrants;
  if (!Array.isArray(grants) || !grants.every((name) => typeof name === "string" && name !== "")) {
    throw fail(`${where}: toolGrants is required: the child's tool names it may use.`);
  }
  const bounded = (value: unknown, field: string, fallback: number, min: number, max: number): number => {
    const given = value ?? fallback;
    if (typeof given !== "number" || !Number.isInteger(given) || given < min || given > max) {
      throw fail(`${where}: ${field} must be an integer from ${min} to ${max.toLocaleString("en")}.`);
    }
    return given;
  };
  if (options.params !== undefined && (options.params === null || typeof options.params !== "object")) {
    if (typeof options.params !== "function")
      throw fail(`${where}: params must be JSON or a function of the parent's.`);
  }
  return Object.freeze({
    child,
    toolGrants: Object.freeze([...new Set(grants)]),
    maxTurns: bounded(options.maxTurns, "maxTurns", 50, 1, 10_000),
    maxDepth: bounded(options.maxDepth, "maxDepth", 1, 1, 3),
    maxDurationMs: bounded(options.maxDurationMs, "maxDurationMs", 1_800_000, 1, 86_400_000),
    maxResultBytes: bounded(options.maxResultBytes, "maxResultBytes", 16_384, 1, 16_777_216),
    params: options.params,
  });
}

/** The child agents a tool declares it runs (`delegates`); empty for a host-tool reference or a tool that runs none. */
export function delegationsOf(tool: ToolDeclaration): readonly ToolDelegation[] {
  return tool.kind === "tool" ? (tool.delegates ?? []) : [];
}

// Tools a child may find only when its Session opens: those a capability's resource lease
// contributes (an MCP server's), and the skill tools, present once skills are found.
const foundAtOpen: ReadonlySet<string> = new Set(["activate_skill", "read_skill_resource"]);

/**
 * The grants of `delegation` that can never name a tool of the child: not declared by it or its
 * capabilities, and not contributable when it opens (a child with a resource-acquiring
 * capability may get more tools then; those grants are checked when the child opens).
 */
export function staticallyUnknownGrants(delegation: ToolDelegation, declared: readonly string[]): readonly string[] {
  const leases = delegation.agent.capabilities.some((capability) => capability.resources.length > 0);
  return delegation.toolGrants.filter((name) => !declared.includes(name) && !foundAtOpen.has(name) && !leases);
}
