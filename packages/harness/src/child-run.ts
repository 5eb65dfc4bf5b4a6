import type { Agent } from "./agent.js";
import type { JsonObject } from "./json.js";

/**
 * The bounds of one child agent Run started with `ctx.runAgent`; `childAgent` takes the same.
 */
export interface RunAgentOptions {
  /** The child's own tool names it may use (hostTool references and skill tools included). Required. */
  readonly toolGrants: readonly string[];
  /** Model calls of the child's Run. Default 50; 1 to 10,000. */
  readonly maxTurns?: number;
  /** Delegation levels the call may open, the child included. Default 1; 1 to 3; a nested call is capped by what its parent has left. */
  readonly maxDepth?: number;
  /** Wall time of the child's Run; then it is aborted (status `timeout`). Default 1,800,000 ms; 1 to 86,400,000. */
  readonly maxDurationMs?: number;
  /** Bytes of the child's final text returned. Default 16,384; 1 to 16,777,216. */
  readonly maxResultBytes?: number;
  /** The child's params: JSON, or a function of the parent's. Default: the parent's values for the keys the child declares. */
  readonly params?: JsonObject | ((parentParams: JsonObject) => JsonObject);
}

/** How a child agent's Run ended. */
export type ChildAgentStatus = "completed" | "failed" | "max_turns" | "timeout" | "aborted";

/** What `ctx.runAgent` resolves to: the child's final text and how its Run ended. */
export interface ChildAgentOutcome {
  readonly agentId: string;
  /** `<parent Session id>/child/<toolCallId>`, or with `-<n>` after the first child of one call. */
  readonly childSessionId: string;
  /** Null when the child Session never started a Run. */
  readonly childRunId: string | null;
  readonly status: ChildAgentStatus;
  readonly turns: number;
  /** The final text, cut to `maxResultBytes` at a UTF-8 boundary; empty unless `completed`. */
  readonly text: string;
  readonly truncated: boolean;
  /** Why it did not complete, when it did not. */
  readonly error?: string;
}

/**
 * A tool's declaration of the child agents it runs with `ctx.runAgent`: the Runner checks when a
 * Session opens that each grant names a tool the child can have (`child_grant_unknown`), and
 * hides the tool from a child Session that has no delegation level left.
 */
export interface ToolDelegation {
  readonly agent: Agent;
  readonly toolGrants: readonly string[];
}

/** Runs `task` as a child agent Session of the calling Session's Runner; see `ToolContext.runAgent`. */
export type RunAgent = (agent: Agent, task: string, options: RunAgentOptions) => Promise<ChildAgentOutcome>;
