import type { ChildAgentOutcome, RunAgent, RunEvent, ToolCall } from "@castellan/harness";
import { ToolInputError } from "@castellan/harness";
import { maxChildTaskBytes, resolveChildAgentSpec } from "../children/child-tools.js";
import type { SessionContext } from "../context/session-context.js";
import type { UsageBudget } from "../context/usage-budget.js";
import type { BatchState } from "./batch-state.js";

/** One call's `ctx.runAgent`, and what it has still running. */
export interface ChildRunner {
  readonly runAgent: RunAgent;
  /** Settles once every child Session started so far is closed; undefined when none is running. */
  drained(): Promise<void> | undefined;
}

/**
 * `ctx.runAgent` of one call: each child a foreground child Session of the same Runner, drained
 * (its Run settled, its resources released) before it resolves; the first is
 * `<parent>/child/<toolCallId>`, later ones of the same call `-2`, `-3`, ... Their model usage
 * is kept for the call's receipt.
 */
export function childRunner(
  session: SessionContext,
  call: ToolCall,
  context: { readonly runId: string; readonly signal: AbortSignal; readonly budget?: UsageBudget },
  batch: BatchState,
  emit: ((event: RunEvent) => void) | undefined,
): ChildRunner {
  let started = 0;
  const running = new Set<Promise<unknown>>();
  const where = `ctx.runAgent in "${call.name}"`;
  const runAgent: RunAgent = async (agent, task, options): Promise<ChildAgentOutcome> => {
    const spec = resolveChildAgentSpec(
      agent,
      options,
      where,
      (message) => new ToolInputError("child_options_invalid", message),
    );
    const bytes = typeof task === "string" ? Buffer.byteLength(task, "utf8") : 0;
    if (bytes < 1 || bytes > maxChildTaskBytes) {
      throw new ToolInputError(
        "task_invalid",
        `task must be 1 to ${maxChildTaskBytes.toLocaleString("en")} bytes; it is ${bytes}.`,
      );
    }
    if (session.child && session.child.remainingDepth <= 0) {
      throw new ToolInputError(
        "child_depth_exceeded",
        `"${call.name}" would open a delegation level past this call's maxDepth; do the task here, with the tools you have.`,
      );
    }
    started++;
    const base = `${session.sessionId}/child/${call.id}`;
    const child = session.runChild(
      spec,
      {
        runId: context.runId,
        toolCallId: call.id,
        toolName: call.name,
        childSessionId: started === 1 ? base : `${base}-${started}`,
        task,
        signal: context.signal,
        onUsage: (usage) => batch.recordChildUsage(call.id, usage),
        ...(context.budget ? { budget: context.budget } : {}),
      },
      emit,
    );
    running.add(child);
    try {
      return await child;
    } finally {
      running.delete(child);
    }
  };
  return {
    runAgent,
    drained: () => (running.size === 0 ? undefined : Promise.allSettled([...running]).then(() => undefined)),
  };
}
