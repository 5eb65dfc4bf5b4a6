import type { JsonValue, RunEvent, StopReason, ToolCall, ToolResult } from "@castellan/harness";
import { deepFreeze } from "@castellan/harness";
import { type OpenCall, unrecordedOutcome } from "../history/session-history.js";
import { askApproval, decidePermission, type PermissionOutcome } from "../permissions/decide.js";
import type { ToolApprovalRequest } from "../permissions/types.js";
import { committedState, type Emit, type SessionCore } from "../session/session-core.js";
import type { SessionRecord } from "../store/records.js";
import type { BoundTool } from "../tools/bind-tools.js";
import { errorResult } from "../tools/tool-output.js";
import { abortable } from "../util/abortable.js";
import { BatchLog, emitReceipts, type Hold, receiptEvents } from "./batch-log.js";
import { BatchState } from "./batch-state.js";
import { notifyStateChanged } from "./state-notify.js";
import { describe, executeTool, type ToolExecution } from "./tool-execution.js";

type LocalTool = Extract<BoundTool, { kind: "local" }>;

/** A call ready to run, with how its permission is settled. */
interface Runnable extends ToolExecution {
  /** An approval answered before this process (durable approvals). */
  readonly answered?: PermissionOutcome;
  /** An approval request saved earlier and still unanswered: ask again without a new record. */
  readonly pendingApproval?: boolean;
}

/** A call checked against the turn's projection: runnable, or already settled with an error (with the input its receipt keeps). */
type Prepared = Runnable | { readonly call: ToolCall; readonly settled: ToolResult; readonly input?: JsonValue };

/** What settling a batch needs to know. */
export interface BatchContext {
  readonly runId: string;
  readonly turn: number;
  readonly signal: AbortSignal;
  readonly emit: Emit;
  /** Where events wait for records saved ahead. */
  readonly outbox: Hold;
  /** Names of the tools visible this turn. */
  readonly visible: ReadonlySet<string>;
  /** Set when an interrupted batch is being settled by an explicit resume. */
  readonly resume?: { readonly retryIdempotent: boolean };
  /** Records (the turn's answer) to save with the batch's first append, and their events, reported once saved. */
  readonly lead?: Lead;
  /** How the turn's answer ended (a call whose arguments are not JSON was cut off when it is `max-tokens`). */
  readonly stopReason?: StopReason;
}

/** Records that ride with the next append, and the events that report them once they are saved. */
export interface Lead {
  readonly records: readonly SessionRecord[];
  readonly events: readonly RunEvent[];
}

/**
 * Settles the calls of one model turn, in call order: unknown, hidden or invalid calls get an
 * error result without executing; the rest are decided (hooks, preset, approval) and run.
 * Consecutive read-only calls run in parallel; any other call runs alone. The batch's start
 * and end are saved; each execution is saved as an intent (tool-start) before it runs and a
 * receipt (tool-end) after; state written by the tools commits with the batch's end, or is
 * discarded if the Run is aborted or fails first.
 */
export async function runToolBatch(
  core: SessionCore,
  calls: readonly ToolCall[],
  context: BatchContext,
): Promise<void> {
  const { runId, turn, signal, emit } = context;
  const batch = new BatchState(committedState(core), core.program.initialState);
  const active = core.history.activeRun;
  // A resumed batch keeps the writes of the calls that settled before the crash.
  if (context.resume) for (const changes of active?.batchWrites ?? []) batch.seed(changes);
  const log = new BatchLog(core, emit);
  if (context.lead) log.hold(context.lead.records, context.lead.events);
  if (!active?.batchOpen)
    log.hold([{ kind: "tool-batch-start", runId, turn, toolCallIds: calls.map((call) => call.id) }]);
  let settled: SessionRecord[] = [];
  try {
    const prepared = calls.map((call) => prepare(core, call, context));
    const groups = groupForScheduling(prepared);
    for (const [index, group] of groups.entries()) {
      const receipts = await runGroup(core, group, context, batch, log);
      if (index < groups.length - 1) {
        if (receipts.length > 0) await log.write(receipts);
        emitReceipts(receipts, emit);
      } else {
        settled = receipts;
      }
    }
  } catch (error) {
    await log
      .write([{ kind: "tool-batch-end", runId, turn, status: "discarded", reason: describe(error) }])
      .catch(() => undefined);
    throw error;
  }
  // The last receipts share one append with the batch's settlement. After an abort, calls that
  // never started keep no receipt: resuming the Run decides them again, a new Run settles them.
  if (signal.aborted) {
    await log.write([
      ...settled,
      { kind: "tool-batch-end", runId, turn, status: "discarded", reason: "The run was aborted." },
    ]);
    emitReceipts(settled, emit);
    return;
  }
  const changes = batch.pending;
  const end: SessionRecord = {
    kind: "tool-batch-end",
    runId,
    turn,
    status: "committed",
    ...(changes ? { changes } : {}),
  };
  if (changes) {
    // Committed state is published (event and hooks) only once saved, so this append is waited for.
    await log.write([...settled, end]);
    emitReceipts(settled, emit);
    await notifyStateChanged(core, { runId, turn, source: "tool", changes }, emit);
    return;
  }
  // Nothing runs on the outcome until the next append, which is durable only after this one:
  // the Run goes on (the next model call) while this one syncs, and its events wait for it.
  await log.writeAhead([...settled, end], receiptEvents(settled), context.outbox);
}

/** What the model is told about a call whose arguments text is not JSON. */
function malformedMessage(call: ToolCall, stopReason: StopReason | undefined): string {
  return stopReason === "max-tokens"
    ? `The call to "${call.name}" was cut off at the output limit before its arguments were complete, so it did not run; send it again with smaller input.`
    : `The arguments of the call to "${call.name}" were not valid JSON, so it did not run; send it again with a JSON object that matches the tool's input schema.`;
}

function prepare(core: SessionCore, call: ToolCall, context: BatchContext): Prepared {
  const bound = core.tools.get(call.name);
  const open = context.resume ? core.history.open.get(call.id) : undefined;
  // A call that may have run is never re-run silently, whatever is visible now.
  if (open?.started && !(bound?.kind === "local" && bound.tool.idempotent && context.resume?.retryIdempotent)) {
    return { call, settled: errorResult(unrecordedOutcome) };
  }
  if (!bound || !context.visible.has(call.name)) {
    const names = [...context.visible].join(", ") || "none";
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
  if (call.malformedInput !== undefined) {
    // The receipt keeps the text the model wrote, so the failure can be read back.
    return { call, settled: errorResult(malformedMessage(call, context.stopReason)), input: call.malformedInput };
  }
  const input = deepFreeze(structuredClone(call.input));
  const problem = bound.validate(input);
  if (problem) {
    return {
      call,
      settled: errorResult(`Invalid input for tool "${call.name}": ${problem}. Correct the input and call it again.`),
    };
  }
  return open ? prepareInterrupted(open, bound, input) : { call, tool: bound, input };
}

/** An interrupted call that may run on an explicit resume: it uses an approval answered earlier, if any. */
function prepareInterrupted(open: OpenCall, tool: LocalTool, input: JsonValue): Prepared {
  const call = open.call;
  const answer = open.approval?.answer;
  if (answer) {
    const answered: PermissionOutcome = {
      decision: answer.decision,
      decidedBy: "approval",
      ...(answer.reason ? { reason: answer.reason } : {}),
    };
    return { call, tool, input, answered };
  }
  return { call, tool, input, ...(open.approval ? { pendingApproval: true } : {}) };
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

/** A call the Run was aborted before (or while asking approval for): it stays open, without a receipt. */
const leftOpen = Symbol("left open");

/** Decides and runs one group; returns the receipts of its settled calls, in call order, for the caller to save. */
async function runGroup(
  core: SessionCore,
  group: readonly Prepared[],
  context: BatchContext,
  batch: BatchState,
  log: BatchLog,
): Promise<SessionRecord[]> {
  const { runId, turn, emit, signal } = context;
  const results = new Map<string, ToolResult>();
  const runnable: Runnable[] = [];
  for (const item of group) {
    if (signal.aborted) continue;
    if ("settled" in item) {
      results.set(item.call.id, item.settled);
    } else {
      const denied = await decide(core, item, context, log);
      if (denied === leftOpen) continue;
      if (denied) results.set(item.call.id, denied);
      else runnable.push(item);
    }
  }

  if (runnable.length > 0) {
    await log.write(
      runnable.map(({ call, input }) => ({ kind: "tool-start", runId, turn, toolCall: { ...call, input } })),
    );
    const executions = runnable.map((item) => {
      emit({ kind: "tool-start", runId, turn, toolCallId: item.call.id, toolName: item.call.name, input: item.input });
      return executeTool(core, item, context, batch).then((result) => {
        results.set(item.call.id, result);
      });
    });
    await Promise.all(executions);
  }

  return group.flatMap((item): SessionRecord[] => {
    if (!results.has(item.call.id)) return [];
    const stateChanges = batch.writtenBy(item.call.id);
    return [
      {
        kind: "tool-end",
        runId,
        turn,
        toolCallId: item.call.id,
        toolName: item.call.name,
        input: "input" in item && item.input !== undefined ? item.input : item.call.input,
        result: results.get(item.call.id) as ToolResult,
        ...(stateChanges ? { stateChanges } : {}),
      } as SessionRecord,
    ];
  });
}

/** Asks for permission; returns an error result when denied, undefined when allowed, `leftOpen` when aborted. */
async function decide(
  core: SessionCore,
  item: Runnable,
  context: BatchContext,
  log: BatchLog,
): Promise<ToolResult | undefined | typeof leftOpen> {
  const { runId, turn, signal } = context;
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
  const approvalLog = {
    requested: (asked: ToolApprovalRequest) =>
      log.write([
        {
          kind: "approval-request",
          runId,
          turn,
          toolCallId: asked.toolCallId,
          toolName: asked.toolName,
          input: asked.input,
          readOnly: asked.readOnly,
          ...(asked.reason ? { reason: asked.reason } : {}),
        },
      ]),
    answered: (outcome: PermissionOutcome) =>
      log.write([
        {
          kind: "approval-answer",
          runId,
          toolCallId: item.call.id,
          decision: outcome.decision,
          ...(outcome.reason ? { reason: outcome.reason } : {}),
        },
      ]),
  };
  let outcome: PermissionOutcome;
  try {
    if (item.answered) {
      outcome = item.answered;
    } else if (item.pendingApproval && core.policy.approval) {
      const asked = { ...request, description: item.tool.tool.description };
      outcome = await abortable(
        askApproval(core.policy.approval, asked, { signal, approvalLog, alreadyRequested: true }),
        signal,
      );
    } else {
      outcome = await abortable(
        decidePermission(request, core.policy, { description: item.tool.tool.description, signal, approvalLog }),
        signal,
      );
    }
  } catch (error) {
    // Aborted while awaiting approval: the saved request stays pending for a resume or an answer.
    if (signal.aborted) return leftOpen;
    outcome = { decision: "deny", decidedBy: "approval", reason: `The approval adapter failed: ${describe(error)}` };
  }
  log.emit({
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
