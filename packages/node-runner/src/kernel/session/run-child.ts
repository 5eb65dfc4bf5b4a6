import type { ChildAgentOutcome, ChildAgentStatus, JsonObject, RunEvent } from "@castellan/harness";
import { cutUtf8, errorMessage } from "@castellan/harness";
import type { ChildAgentSpec } from "../children/child-tools.js";
import { ChildGrantUnknownError } from "../children/errors.js";
import type { ChildAgentCall, SessionContext } from "../context/session-context.js";
import type { Registry } from "../plugins/registry.js";
import { admitSession } from "./admit.js";
import { NodeSession } from "./session.js";

/** How a child's Run ended. */
export type ChildStatus = ChildAgentStatus;

/** The `childAgent` tool's result: `ctx.runAgent`'s outcome, typed. */
export interface ChildAgentReport extends ChildAgentOutcome {
  readonly type: "child-agent-report";
}

/** The child's params: given JSON, a function of the parent's, or the parent's values for the keys the child declares. */
function childParams(spec: ChildAgentSpec, parentParams: JsonObject): JsonObject {
  if (typeof spec.params === "function") return spec.params(parentParams);
  if (spec.params !== undefined) return spec.params;
  return Object.fromEntries(
    spec.child.params.filter((key) => key in parentParams).map((key) => [key, parentParams[key] as never]),
  );
}

/**
 * Runs one `ctx.runAgent` call: a foreground child Session `call.childSessionId` of the
 * same Runner (its own Program, resources and model; the parent's hooks, preset and approval,
 * with `parent` on every request), its projection limited to the grants, the task its only
 * input, bounded by `maxTurns` and `maxDurationMs`. Its events are yielded as `child-event`s
 * and its model usage given to `call.onUsage`. The child Session is closed (its resources
 * released) before the call settles; a failure is an outcome, never a throw.
 */
export async function runChildAgent(
  parent: SessionContext,
  registry: Registry,
  spec: ChildAgentSpec,
  call: ChildAgentCall,
  emit: ((event: RunEvent) => void) | undefined,
): Promise<ChildAgentOutcome> {
  const { childSessionId } = call;
  // The levels this call may open, the child included; a nested maxDepth is capped by what remains.
  const levels = parent.child ? Math.min(parent.child.remainingDepth, spec.maxDepth) : spec.maxDepth;
  const depthLeft = levels - 1;
  const { task } = call;
  const report = (fields: Omit<ChildAgentOutcome, "agentId" | "childSessionId">): ChildAgentOutcome =>
    Object.freeze({ agentId: spec.child.id, childSessionId, ...fields });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), spec.maxDurationMs);
  const signal = AbortSignal.any([call.signal, deadline.signal]);
  let admitted: Awaited<ReturnType<typeof admitSession>>;
  try {
    admitted = await admitSession({
      agent: spec.child,
      registry,
      sessionId: childSessionId,
      params: childParams(spec, parent.params),
      preset: parent.preset,
      limits: { ...parent.limits, maxTurns: spec.maxTurns },
      contextBudget: parent.contextBudget,
      builtinPrompts: parent.builtinPrompts,
      signal,
      child: {
        parent: {
          sessionId: parent.sessionId,
          runId: call.runId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
        },
        grants: new Set(spec.toolGrants),
        remainingDepth: depthLeft,
      },
    });
  } catch (error) {
    clearTimeout(timer);
    return report({
      childRunId: null,
      status: call.signal.aborted ? "aborted" : "failed",
      turns: 0,
      text: "",
      truncated: false,
      error: errorMessage(error),
    });
  }
  const session = new NodeSession(admitted, {});
  let turns = 0;
  let childRunId: string | null = null;
  try {
    const known = admitted.context.program.tools.map((tool) => tool.name);
    const unknown = spec.toolGrants.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new ChildGrantUnknownError(spec.child.id, unknown, known);
    const run = session.run(task, { signal, ...(call.budget ? { budget: call.budget } : {}) });
    childRunId = run.id;
    for await (const event of run) {
      if (event.kind === "turn-start") turns++;
      if (event.kind === "model-usage")
        call.onUsage({ agentId: spec.child.id, model: event.model, usage: event.usage });
      emit?.({
        kind: "child-event",
        runId: call.runId,
        toolCallId: call.toolCallId,
        childSessionId,
        event,
      } as RunEvent);
    }
    const result = await run.result;
    const cut = cutUtf8(result.text, spec.maxResultBytes);
    return report({ childRunId, status: "completed", turns, text: cut.text, truncated: cut.truncated });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const status: ChildStatus = deadline.signal.aborted
      ? "timeout"
      : call.signal.aborted
        ? "aborted"
        : code === "max_turns"
          ? "max_turns"
          : "failed";
    return report({ childRunId, status, turns, text: "", truncated: false, error: errorMessage(error) });
  } finally {
    clearTimeout(timer);
    await session.close().catch(() => undefined);
  }
}
