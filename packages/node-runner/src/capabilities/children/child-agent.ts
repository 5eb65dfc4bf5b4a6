import {
  type Agent,
  type Capability,
  DeclarationError,
  defineCapability,
  defineTool,
  type Enabled,
  type RunAgentOptions,
  ToolInputError,
} from "@castellan/harness";
import { maxChildTaskBytes, resolveChildAgentSpec } from "../../kernel/children/child-tools.js";
import type { ChildAgentReport } from "../../kernel/session/run-child.js";

/** Options of {@link childAgent}: the bounds of `ctx.runAgent`, the tool's description and whether it is enabled. */
export interface ChildAgentOptions extends RunAgentOptions {
  /** The tool's description. Default: the child's id and the grants. */
  readonly description?: string;
  readonly enabled?: Enabled;
}

/** Longest task, in bytes. */
export { maxChildTaskBytes };

/** The tool name of a child: `agent_<id>`, other characters as `_`, cut at 64. */
export function childAgentToolName(childId: string): string {
  return `agent_${childId}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/**
 * Delegates bounded tasks to `Child`: one tool, `agent_<Child.id>` with input `{ task }`, built
 * on `ctx.runAgent` like any application's tool could be: it runs the task as a foreground
 * child Session of the same Runner (`<parent>/child/<toolCallId>`): its own Program, resources
 * and model, no parent history, only the granted tools in every turn, and every call under the
 * parent's hooks, preset and approval with `parent` on the request. The tool is never read-only
 * (it spends model requests and writes a child log); its admission is `{ policyKey:
 * "child-agent", agentId, toolGrants, readOnlyGrants }`. The result is a `child-agent-report`
 * (`readChildAgentReport`), an error result unless the child completed.
 *
 * @throws DeclarationError for a missing `toolGrants` or a bound out of range.
 */
export function childAgent(Child: Agent, options: ChildAgentOptions): Capability {
  const spec = resolveChildAgentSpec(Child, options, "childAgent", (message) => new DeclarationError(message));
  const bounds: RunAgentOptions = {
    toolGrants: spec.toolGrants,
    maxTurns: spec.maxTurns,
    maxDepth: spec.maxDepth,
    maxDurationMs: spec.maxDurationMs,
    maxResultBytes: spec.maxResultBytes,
    ...(spec.params !== undefined ? { params: spec.params } : {}),
  };
  const tool = defineTool<{ task: string }>({
    name: childAgentToolName(Child.id),
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
    delegates: [{ agent: Child, toolGrants: spec.toolGrants }],
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
    async execute(input, ctx) {
      const outcome = await ctx.runAgent(Child, input.task, bounds);
      const report: ChildAgentReport = { type: "child-agent-report", ...outcome };
      return { content: [{ type: "text", text: JSON.stringify(report) }], isError: outcome.status !== "completed" };
    },
  });
  return defineCapability({
    name: `child:${Child.id}`,
    tools: [tool],
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
  });
}
