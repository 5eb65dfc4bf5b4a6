import {
  type Agent,
  type Capability,
  DeclarationError,
  defineCapability,
  defineTool,
  type Enabled,
  type JsonObject,
  ToolInputError,
} from "@castellan/harness";
import { type ChildAgentSpec, withChildAgentSpec } from "../../kernel/children/child-tools.js";

/** Options of {@link childAgent}. */
export interface ChildAgentOptions {
  /** The child's own tool names it may use (hostTool references and skill tools included). Required. */
  readonly toolGrants: readonly string[];
  /** The tool's description. Default: the child's id and the grants. */
  readonly description?: string;
  /** Model calls of the child's Run. Default 50. */
  readonly maxTurns?: number;
  /** Delegation levels a call may open, the child included. Default 1; at most 3. */
  readonly maxDepth?: number;
  /** Wall time of the child's Run; then it is aborted (`timeout`). Default 1,800,000 ms. */
  readonly maxDurationMs?: number;
  /** Bytes of the child's final text returned. Default 16,384. */
  readonly maxResultBytes?: number;
  /** The child's params: JSON, or a function of the parent's. Default: the parent's values for the keys the child declares. */
  readonly params?: JsonObject | ((parentParams: JsonObject) => JsonObject);
  readonly enabled?: Enabled;
}

/** Longest task, in bytes. */
export const maxChildTaskBytes = 32_768;

/** The tool name of a child: `agent_<id>`, other characters as `_`, cut at 64. */
export function childAgentToolName(childId: string): string {
  return `agent_${childId}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

function bounded(value: unknown, field: string, fallback: number, min: number, max: number): number {
  const given = value ?? fallback;
  if (typeof given !== "number" || !Number.isInteger(given) || given < min || given > max) {
    throw new DeclarationError(`childAgent: ${field} must be an integer from ${min} to ${max.toLocaleString("en")}.`);
  }
  return given;
}

/**
 * Delegates bounded tasks to `Child`: one tool, `agent_<Child.id>` with input `{ task }`, that
 * runs the task as a foreground child Session of the same Runner (`<parent>/child/<toolCallId>`):
 * its own Program, resources and model, no parent history, only the granted tools in every turn,
 * and every call under the parent's hooks, preset and approval with `parent` on the request. The
 * tool is never read-only (it spends model requests and writes a child log); its admission is
 * `{ policyKey: "child-agent", agentId, toolGrants, readOnlyGrants }`. The result is a
 * `child-agent-report`.
 *
 * @throws DeclarationError for a missing `toolGrants` or a bound out of range.
 */
export function childAgent(Child: Agent, options: ChildAgentOptions): Capability {
  if (Child?.kind !== "agent") throw new DeclarationError("childAgent: the child must be made with defineAgent.");
  const grants = options?.toolGrants;
  if (!Array.isArray(grants) || !grants.every((name) => typeof name === "string" && name !== "")) {
    throw new DeclarationError("childAgent: toolGrants is required: the child's tool names it may use.");
  }
  const spec: ChildAgentSpec = Object.freeze({
    child: Child,
    toolGrants: Object.freeze([...new Set(grants)]),
    maxTurns: bounded(options.maxTurns, "maxTurns", 50, 1, 10_000),
    maxDepth: bounded(options.maxDepth, "maxDepth", 1, 1, 3),
    maxDurationMs: bounded(options.maxDurationMs, "maxDurationMs", 1_800_000, 1, 86_400_000),
    maxResultBytes: bounded(options.maxResultBytes, "maxResultBytes", 16_384, 1, 16_777_216),
    params: options.params,
  });
  const name = childAgentToolName(Child.id);
  const tool = defineTool<{ task: string }>({
    name,
    description:
      options.description ??
      `Hand a bounded task to the "${Child.id}" agent, which may use ${spec.toolGrants.join(", ") || "no tools"}; returns its report.`,
    inputSchema: {
      type: "object",
      properties: {
        task: { type: "string", minLength: 1, description: "The whole task: the child sees nothing else." },
      },
      required: ["task"],
      additionalProperties: false,
    },
    admit(input) {
      const bytes = Buffer.byteLength(input.task ?? "", "utf8");
      if (bytes < 1 || bytes > maxChildTaskBytes) {
        throw new ToolInputError(
          "task_invalid",
          `task must be 1 to ${maxChildTaskBytes.toLocaleString("en")} bytes; it is ${bytes}.`,
        );
      }
      const readOnlyGrants = spec.toolGrants.every((grant) => {
        const own = Child.tools.find((candidate) => candidate.name === grant);
        return own?.kind === "tool" && own.readOnly === true;
      });
      return {
        admission: { policyKey: "child-agent", agentId: Child.id, toolGrants: [...spec.toolGrants], readOnlyGrants },
      };
    },
    // Never run: the Runner runs a child-agent tool itself.
    execute: () => {
      throw new Error("A child-agent tool runs only in a Castellan Runner.");
    },
  });
  return defineCapability({
    name: `child:${Child.id}`,
    tools: [withChildAgentSpec(tool, spec)],
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
  });
}
