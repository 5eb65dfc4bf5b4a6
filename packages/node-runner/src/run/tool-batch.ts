import type { JsonValue, ToolCall, ToolContext, ToolResult } from "@castellan/harness";
import { deepFreeze } from "@castellan/harness";
import { decidePermission } from "../permissions/decide.js";
import { type Emit, type SessionCore, turnContext } from "../session/session-core.js";
import type { SessionRecord } from "../store/records.js";
import type { BoundTool } from "../tools/bind-tools.js";
import { errorResult, toToolResult } from "../tools/tool-output.js";
import { abortable } from "../util/abortable.js";

type LocalTool = Extract<BoundTool, { kind: "local" }>;

/** A call checked against the turn's projection: runnable, or already settled with an error. */
type Prepared =
  | { readonly call: ToolCall; readonly tool: LocalTool; readonly input: JsonValue }
  | { readonly call: ToolCall; readonly settled: ToolResult };

interface BatchContext {
  readonly runId: string;
  readonly turn: number;
  readonly signal: AbortSignal;
  readonly emit: Emit;
  /** Names of the tools visible this turn. */
  readonly visible: ReadonlySet<string>;
}

/**
 * Settles every call of one model turn, in call order: unknown, hidden or invalid calls get an
 * error result without executing; the rest are decided (hooks, preset, approval) and run.
 * Consecutive read-only calls run in parallel; any other call runs alone. Each execution is
 * logged as an intent (tool-start) before it runs and as a receipt (tool-end) after.
 */
export async function runToolBatch(
  core: SessionCore,
  calls: readonly ToolCall[],
  context: BatchContext,
): Promise<void> {
  const prepared = calls.map((call) => prepare(core, call, context.visible));
  for (const group of groupForScheduling(prepared)) {
    await runGroup(core, group, context);
  }
}

function prepare(core: SessionCore, call: ToolCall, visible: ReadonlySet<string>): Prepared {
  const bound = core.tools.get(call.name);
  if (!bound || !visible.has(call.name)) {
    const names = [...visible].join(", ") || "none";
    return {
      call,
      settled: errorResult(`Tool "${call.name}" is not available in this turn. Available tools: ${names}.`),
    };
  }
  if (bound.kind === "hosted") {
    return {
      call,
      settled: errorResult(`Tool "${call.name}" is run by the model provider and cannot be called here.`),
    };
  }
  const input = deepFreeze(structuredClone(call.input));
  const problem = bound.validate(input);
  if (problem) {
    return {
      call,
      settled: errorResult(`Invalid input for tool "${call.name}": ${problem}. Correct the input and call it again.`),
    };
  }
  return { call, tool: bound, input };
}

/** Consecutive runnable read-only calls share a group; every other call is a group of its own. */
function groupForScheduling(prepared: readonly Prepared[]): Prepared[][] {
  const groups: Prepared[][] = [];
  let parallel: Prepared[] | undefined;
  for (const item of prepared) {
    if ("tool" in item && item.tool.tool.readOnly) {
      if (!parallel) {
        parallel = [];
        groups.push(parallel);
      }
      parallel.push(item);
    } else {
      parallel = undefined;
      groups.push([item]);
    }
  }
  return groups;
}

async function runGroup(core: SessionCore, group: readonly Prepared[], context: BatchContext): Promise<void> {
  const { runId, turn, emit, signal } = context;
  const results = new Map<string, ToolResult>();
  const runnable: Extract<Prepared, { tool: LocalTool }>[] = [];
  for (const item of group) {
    if (signal.aborted) {
      results.set(item.call.id, errorResult("Not run: the run was aborted before this call started."));
    } else if ("settled" in item) {
      results.set(item.call.id, item.settled);
    } else {
      const outcome = await decide(core, item, context);
      if (outcome) results.set(item.call.id, outcome);
      else runnable.push(item);
    }
  }

  if (runnable.length > 0) {
    await core.persist(
      runnable.map(({ call, input }) => ({ kind: "tool-start", runId, turn, toolCall: { ...call, input } })),
    );
    const executions = runnable.map((item) => {
      emit({ kind: "tool-start", runId, turn, toolCallId: item.call.id, toolName: item.call.name, input: item.input });
      return execute(core, item, context).then((result) => {
        results.set(item.call.id, result);
      });
    });
    await Promise.all(executions);
  }

  const receipts: SessionRecord[] = group.map((item) => ({
    kind: "tool-end",
    runId,
    turn,
    toolCallId: item.call.id,
    toolName: item.call.name,
    input: "input" in item ? item.input : item.call.input,
    result: results.get(item.call.id) as ToolResult,
  }));
  await core.persist(receipts);
  for (const record of receipts) {
    if (record.kind !== "tool-end") continue;
    emit({
      kind: "tool-end",
      runId,
      turn,
      toolCallId: record.toolCallId,
      toolName: record.toolName,
      result: record.result,
    });
  }
}

/** Asks for permission; returns an error result when denied, undefined when allowed. */
async function decide(
  core: SessionCore,
  item: Extract<Prepared, { tool: LocalTool }>,
  context: BatchContext,
): Promise<ToolResult | undefined> {
  const { runId, turn, emit, signal } = context;
  const request = {
    agent: { id: core.agent.id },
    sessionId: core.sessionId,
    runId,
    turn,
    toolCallId: item.call.id,
    toolName: item.call.name,
    input: item.input,
    readOnly: item.tool.tool.readOnly,
  };
  let outcome: Awaited<ReturnType<typeof decidePermission>>;
  try {
    outcome = await abortable(
      decidePermission(request, core.policy, { description: item.tool.tool.description, signal }),
      signal,
    );
  } catch (error) {
    if (signal.aborted) return errorResult("Not run: the run was aborted while the call awaited approval.");
    outcome = {
      decision: "deny",
      decidedBy: "approval",
      reason: `The approval adapter failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  emit({
    kind: "tool-permission",
    runId,
    turn,
    toolCallId: item.call.id,
    toolName: item.call.name,
    decision: outcome.decision,
    decidedBy: outcome.decidedBy,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
  });
  if (outcome.decision === "allow") return undefined;
  return errorResult(`Permission denied for tool "${item.call.name}": ${outcome.reason ?? "denied"}`);
}

async function execute(
  core: SessionCore,
  item: Extract<Prepared, { tool: LocalTool }>,
  context: BatchContext,
): Promise<ToolResult> {
  const { runId, turn, signal } = context;
  const ctx: ToolContext = {
    ...turnContext(core, turn),
    sessionId: core.sessionId,
    runId,
    toolCallId: item.call.id,
    toolName: item.call.name,
    agent: { id: core.agent.id },
    signal,
  };
  const execution = Promise.resolve()
    .then(() => item.tool.tool.execute(item.input, ctx))
    .then(toToolResult, (error: unknown) =>
      signal.aborted
        ? errorResult(`The tool stopped because the run was aborted; its effects may be partial. ${describe(error)}`)
        : errorResult(`Tool "${item.call.name}" failed: ${describe(error)}`),
    );
  return await settleWithGrace(execution, signal, core.limits.abortGraceMs);
}

/** After an abort, waits at most `graceMs` for a running tool, then records its outcome as unknown. */
function settleWithGrace(execution: Promise<ToolResult>, signal: AbortSignal, graceMs: number): Promise<ToolResult> {
  return new Promise<ToolResult>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      timer = setTimeout(
        () => resolve(errorResult("The tool was still running when the run was aborted; its outcome is unknown.")),
        graceMs,
      );
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    execution.then((result) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(result);
    });
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
