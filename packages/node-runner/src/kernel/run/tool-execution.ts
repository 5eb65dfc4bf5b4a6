import type { BindingHandle, JsonValue, RunEvent, ToolCall, ToolContext, ToolResult } from "@castellan/harness";
import { CastellanError, errorMessage, isToolInputError } from "@castellan/harness";
import { type SessionContext, turnContext } from "../context/session-context.js";
import type { UsageBudget } from "../context/usage-budget.js";
import { ToolExecutionHostError } from "../errors/errors.js";
import type { BoundTool } from "../tools/bind-tools.js";
import { errorResult, toToolResult } from "../tools/tool-output.js";
import type { BatchState } from "./batch-state.js";
import { childRunner } from "./run-agent.js";

/** A call allowed to run: its bound tool and exact validated input. */
export interface ToolExecution {
  readonly call: ToolCall;
  readonly tool: Extract<BoundTool, { kind: "local" }>;
  readonly input: JsonValue;
  /** What the tool's `admit` returned as `admission`, if it has one. */
  readonly admission?: JsonValue;
}

/**
 * Runs one allowed call with its tool context (batch state, idempotency key, signal). A throw
 * becomes an error result the model reads; after an abort the tool gets `abortGraceMs` to stop.
 */
export async function executeTool(
  session: SessionContext,
  item: ToolExecution,
  context: {
    readonly runId: string;
    readonly turn: number;
    readonly signal: AbortSignal;
    readonly budget?: UsageBudget;
  },
  batch: BatchState,
  emit?: (event: RunEvent) => void,
): Promise<ToolResult> {
  const { runId, turn, signal } = context;
  const base = turnContext(session, turn);
  const children = childRunner(session, item.call, context, batch, emit);
  const ctx: ToolContext = {
    turn,
    params: base.params,
    toolCalls: base.toolCalls,
    hostedToolCalls: base.hostedToolCalls,
    resource: base.resource,
    get state() {
      return batch.view;
    },
    setState: (update) => batch.update(update, item.call, item.tool.entry.source),
    runAgent: children.runAgent,
    sandbox: session.sandbox,
    resources: resourcesOf(session, item),
    sessionId: session.sessionId,
    runId,
    toolCallId: item.call.id,
    toolName: item.call.name,
    agent: session.agent,
    signal,
    idempotencyKey: `castellan:${session.sessionId}:${runId}:${item.call.id}`,
    ...(item.admission !== undefined ? { admission: item.admission } : {}),
  };
  const execution = Promise.resolve()
    .then(() => item.tool.tool.execute(item.input, ctx))
    .then(toToolResult, (error: unknown) =>
      signal.aborted
        ? errorResult(
            `The tool stopped because the run was aborted; its effects may be partial. ${errorMessage(error)}`,
          )
        : error instanceof ToolExecutionHostError
          ? errorResult(
              `tool_execution_host_error: The host failed while running "${item.call.name}"; this is not a failure of what was asked: ${errorMessage(error)}`,
            )
          : errorResult(`Tool "${item.call.name}" failed: ${describeCoded(error)}`),
    );
  return await settleWithGrace(execution, signal, session.limits.abortGraceMs, children.drained);
}

const noResources: readonly never[] = Object.freeze([]);

/** The acquired resources of the capability that declares the call's tool (or its hostTool reference). */
export function resourcesOf(session: SessionContext, item: ToolExecution): readonly BindingHandle[] {
  const source = item.tool.entry.source;
  return source.kind === "capability" ? (session.capabilityResources.get(source.name) ?? noResources) : noResources;
}

/**
 * After an abort, waits at most `graceMs` for a running tool, then records its outcome as
 * unknown. A tool still running a child agent then is waited for until that child Session is
 * closed (its Run settled, its resources released), and `graceMs` more: a child is never left
 * running behind its parent's settled call.
 */
function settleWithGrace(
  execution: Promise<ToolResult>,
  signal: AbortSignal,
  graceMs: number,
  childrenDrained: () => Promise<void> | undefined,
): Promise<ToolResult> {
  return new Promise<ToolResult>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const unknown = () => {
      if (!settled)
        resolve(errorResult("The tool was still running when the run was aborted; its outcome is unknown."));
    };
    const expire = () => {
      const draining = childrenDrained();
      if (!draining) return unknown();
      void draining.then(() => {
        timer = setTimeout(unknown, graceMs);
      });
    };
    const onAbort = () => {
      timer = setTimeout(expire, graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    execution.then((result) => {
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(result);
    });
  });
}

/**
 * Like `describe`, with the stable code of a Castellan error (e.g. `state_invalid` from setState)
 * or a tool's own `ToolInputError` code (e.g. `child_depth_exceeded` from `ctx.runAgent`) in front.
 */
function describeCoded(error: unknown): string {
  if (isToolInputError(error)) return error.resultText;
  return error instanceof CastellanError ? `${error.code}: ${error.message}` : errorMessage(error);
}
