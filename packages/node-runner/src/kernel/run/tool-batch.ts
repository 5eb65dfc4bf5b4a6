import type { JsonValue, RunEvent, StopReason, ToolCall, ToolResult } from "@castellan/harness";
import { describeToolCall, errorMessage, frozenJsonCopy } from "@castellan/harness";
import { delegationsOf } from "../children/child-tools.js";
import { committedState, type SessionContext } from "../context/session-context.js";
import type { UsageBudget } from "../context/usage-budget.js";
import { type OpenCall, unrecordedOutcome } from "../history/session-history.js";
import type { RunJournal } from "../journal/run-journal.js";
import { askApproval, decidePermission, type PermissionOutcome, type PermissionPolicy } from "../permissions/decide.js";
import type { ToolApprovalRequest, ToolPermissionHook } from "../permissions/types.js";
import type { ChildUsage, SessionRecord } from "../store/records.js";
import type { BoundTool } from "../tools/bind-tools.js";
import { errorResult } from "../tools/tool-output.js";
import { abortable } from "../util/abortable.js";
import { BatchState } from "./batch-state.js";
import { notifyStateChanged } from "./state-notify.js";
import { admitCall } from "./tool-admission.js";
import { executeTool, resourcesOf, type ToolExecution } from "./tool-execution.js";

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
  /** Names of the tools visible this turn. */
  readonly visible: ReadonlySet<string>;
  /** Set when an interrupted batch is being settled by an explicit resume. */
  readonly resume?: { readonly retryIdempotent: boolean };
  /** How the turn's answer ended (a call whose arguments are not JSON was cut off when it is `max-tokens`). */
  readonly stopReason?: StopReason;
  /** What is left of the Run's budget: a child agent's Run may spend at most this. */
  readonly budget?: UsageBudget;
  /**
   * Resolves once the Run's consumer has taken the events emitted so far: an approval is asked
   * only after the consumer has seen the call's `tool-call` event. Default: at once.
   */
  readonly delivered?: () => Promise<void>;
}

/**
 * How a batch's intents and receipts are saved. A tool with effects runs only once its intent
 * is durable (`durable-intents`): after a crash the log must say it may have run. A batch of
 * only read-only calls needs no such guard, since running such a call again is harmless: its
 * records are committed ahead, and no sync stands between the model's answer and its tools.
 */
type Saving = "durable-intents" | "ahead";

/** A call the Run was aborted before (or while asking approval for): it stays open, without a receipt. */
const leftOpen = Symbol("left open");

/**
 * Settles the calls of one model turn, in call order: unknown, hidden or invalid calls get an
 * error result without executing; the rest are decided (hooks, preset, approval) and run.
 * Consecutive read-only calls run in parallel; any other call runs alone. The batch's start
 * and end are saved; each execution is saved as an intent (tool-start) before it runs and a
 * receipt (tool-end) after; state written by the tools commits with the batch's end, or is
 * discarded if the Run is aborted or fails first. Whatever the journal has staged (the turn's
 * answer) rides with the batch's first append.
 */
export async function runToolBatch(
  session: SessionContext,
  journal: RunJournal,
  calls: readonly ToolCall[],
  context: BatchContext,
): Promise<void> {
  const { runId, turn, signal } = context;
  const batch = new BatchState(committedState(session), session.program.initialState, session.program.reservedState);
  const active = session.history.activeRun;
  // A resumed batch keeps the writes of the calls that settled before the crash.
  if (context.resume) for (const changes of active?.batchWrites ?? []) batch.seed(changes);
  if (!active?.batchOpen) {
    journal.stage([{ kind: "tool-batch-start", runId, turn, toolCallIds: calls.map((call) => call.id) }]);
  }
  let settled: SessionRecord[] = [];
  try {
    const prepared = await Promise.all(calls.map((call) => prepare(session, call, context)));
    const saving: Saving = prepared.every((item) => "settled" in item || item.tool.tool.readOnly)
      ? "ahead"
      : "durable-intents";
    const groups = groupForScheduling(prepared);
    for (const [index, group] of groups.entries()) {
      const receipts = await runGroup(session, journal, group, context, batch, saving);
      if (index === groups.length - 1) {
        settled = receipts;
      } else if (receipts.length > 0) {
        await save(journal, saving, receipts, receiptEvents(session, receipts));
      }
    }
  } catch (error) {
    await journal
      .commit([{ kind: "tool-batch-end", runId, turn, status: "discarded", reason: errorMessage(error) }])
      .catch(() => undefined);
    throw error;
  }
  // The last receipts share one append with the batch's settlement. After an abort, calls that
  // never started keep no receipt: resuming the Run decides them again, a new Run settles them.
  if (signal.aborted) {
    await journal.commit(
      [...settled, { kind: "tool-batch-end", runId, turn, status: "discarded", reason: "The run was aborted." }],
      receiptEvents(session, settled),
    );
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
    await journal.commit([...settled, end], receiptEvents(session, settled));
    await notifyStateChanged(session, journal, { runId, turn, source: "tool", changes });
    return;
  }
  // Nothing runs on the outcome until the next append, which is durable only after this one:
  // the Run goes on (the next model call) while this one syncs, and its events wait for it.
  await journal.commitAhead([...settled, end], receiptEvents(session, settled));
}

function save(
  journal: RunJournal,
  saving: Saving,
  records: readonly SessionRecord[],
  events: readonly RunEvent[],
): Promise<void> {
  return saving === "ahead" ? journal.commitAhead(records, events) : journal.commit(records, events);
}

/** The `tool-end` events that report the receipts. */
function receiptEvents(session: SessionContext, receipts: readonly SessionRecord[]): RunEvent[] {
  const events: RunEvent[] = [];
  for (const record of receipts) {
    if (record.kind !== "tool-end") continue;
    const { runId, turn, toolCallId, toolName, result } = record;
    const source = session.tools.get(toolName)?.entry.source;
    events.push({ kind: "tool-end", runId, turn, toolCallId, toolName, ...(source ? { source } : {}), result });
  }
  return events;
}

/** What the model is told about a call whose arguments text is not JSON. */
function malformedMessage(call: ToolCall, stopReason: StopReason | undefined): string {
  return stopReason === "max-tokens"
    ? `The call to "${call.name}" was cut off at the output limit before its arguments were complete, so it did not run; send it again with smaller input.`
    : `The arguments of the call to "${call.name}" were not valid JSON, so it did not run; send it again with a JSON object that matches the tool's input schema.`;
}

async function prepare(session: SessionContext, call: ToolCall, context: BatchContext): Promise<Prepared> {
  const bound = session.tools.get(call.name);
  const open = context.resume ? session.history.open.get(call.id) : undefined;
  // A call that may have run is never re-run silently, whatever is visible now; a read-only
  // call has no effect to repeat, so it simply runs again.
  const rerunnable =
    bound?.kind === "local" && (bound.tool.readOnly || (bound.tool.idempotent && context.resume?.retryIdempotent));
  if (open?.started && !rerunnable) {
    return { call, settled: errorResult(unrecordedOutcome) };
  }

  // A tool that runs child agents is hidden once no delegation level is left; say why.
  if (bound?.kind === "local" && delegationsOf(bound.tool).length > 0 && session.child?.remainingDepth === 0) {
    return {
      call,
      settled: errorResult(
        `child_depth_exceeded: "${call.name}" would open a delegation level past this call's maxDepth; do the task here, with the tools you have.`,
      ),
    };
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
  const given = frozenJsonCopy(call.input);
  const checked = await bound.validate(given);
  if (checked.problem !== undefined) {
    return {
      call,
      settled: errorResult(
        `Invalid input for tool "${call.name}": ${checked.problem}. Correct the input and call it again.`,
      ),
    };
  }
  // A Standard Schema may answer another value (defaults, coercions): the call goes on with it.
  const input = checked.input === given ? given : frozenJsonCopy(checked.input);
  return open ? prepareInterrupted(open, bound, input) : { call, tool: bound, input };
}

/** An interrupted call that may run on an explicit resume: it uses an approval answered earlier, if any. */
function prepareInterrupted(open: Readonly<OpenCall>, tool: LocalTool, input: JsonValue): Prepared {
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

/** Decides and runs one group; returns the receipts of its settled calls, in call order, for the caller to save. */
async function runGroup(
  session: SessionContext,
  journal: RunJournal,
  group: readonly Prepared[],
  context: BatchContext,
  batch: BatchState,
  saving: Saving,
): Promise<SessionRecord[]> {
  const { runId, turn, signal } = context;
  const results = new Map<string, ToolResult>();
  // The input each admitted call runs with (its tool's `admit` may have replaced it).
  const inputs = new Map<string, JsonValue>();
  const runnable: Runnable[] = [];
  for (const prepared of group) {
    if (signal.aborted) continue;
    if ("settled" in prepared) {
      results.set(prepared.call.id, prepared.settled);
      continue;
    }
    let admitted: Awaited<ReturnType<typeof admitCall>>;
    try {
      admitted = await admitCall(session, prepared, context);
    } catch (error) {
      if (signal.aborted) continue;
      throw error;
    }
    if ("refused" in admitted) {
      // Refused by its own tool: nobody is asked and nothing starts.
      results.set(prepared.call.id, admitted.refused);
      continue;
    }
    const item: Runnable = { ...prepared, ...admitted };
    inputs.set(item.call.id, item.input);
    const denied = await decide(session, journal, item, context);
    if (denied === leftOpen) continue;
    if (denied) results.set(item.call.id, denied);
    else runnable.push(item);
  }

  if (runnable.length > 0) {
    await save(
      journal,
      saving,
      runnable.map(({ call, input }) => ({ kind: "tool-start", runId, turn, toolCall: { ...call, input } })),
      runnable.map(({ call, input, tool }) => ({
        kind: "tool-start",
        runId,
        turn,
        toolCallId: call.id,
        toolName: call.name,
        source: tool.entry.source,
        input,
      })),
    );
    await Promise.all(
      runnable.map((item) =>
        executeTool(session, item, context, batch, journal.emit).then((result) => {
          results.set(item.call.id, result);
        }),
      ),
    );
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
        input: inputs.get(item.call.id) ?? ("input" in item && item.input !== undefined ? item.input : item.call.input),
        result: results.get(item.call.id) as ToolResult,
        ...(stateChanges ? { stateChanges } : {}),
        ...childUsageField(batch.childUsageOf(item.call.id)),
      },
    ];
  });
}

/** Asks for permission; returns an error result when denied, undefined when allowed, `leftOpen` when aborted. */
async function decide(
  session: SessionContext,
  journal: RunJournal,
  item: Runnable,
  context: BatchContext,
): Promise<ToolResult | undefined | typeof leftOpen> {
  const { runId, turn, signal } = context;
  const request = {
    agent: session.agent,
    sessionId: session.sessionId,
    runId,
    turn,
    toolCallId: item.call.id,
    toolName: item.call.name,
    source: item.tool.entry.source,
    input: item.input,
    readOnly: item.tool.tool.readOnly,
    ...(session.child ? { parent: session.child.parent } : {}),
    ...(item.admission !== undefined ? { admission: item.admission } : {}),
  };
  // The adapter is asked once every event so far has left the journal's outbox (a save ahead may
  // still hold the call's tool-call) and the Run's consumer is done with them.
  const beforeAsking = async () => {
    await journal.released();
    await context.delivered?.();
  };
  // How a person asked about the call sees it: the tool's own words, never its model-facing description.
  const shown = describeToolCall(item.tool.tool, item.input, item.admission);
  // A person is asked only once the request is durable, so it outlives this process.
  const approvalLog = {
    requested: (asked: ToolApprovalRequest) =>
      journal.commit([
        {
          kind: "approval-request",
          runId,
          turn,
          toolCallId: asked.toolCallId,
          toolName: asked.toolName,
          input: asked.input,
          readOnly: asked.readOnly,
          ...(asked.reason ? { reason: asked.reason } : {}),
          ...(asked.admission !== undefined ? { admission: asked.admission } : {}),
        },
      ]),
    answered: (outcome: PermissionOutcome) =>
      journal.commit([
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
    } else if (item.pendingApproval && session.policy.approval) {
      const asked = { ...request, ...shown, description: item.tool.tool.description };
      outcome = await abortable(
        askApproval(session.policy.approval, asked, {
          signal,
          approvalLog,
          alreadyRequested: true,
          beforeAsking,
        }),
        signal,
      );
    } else {
      outcome = await abortable(
        decidePermission(request, policyFor(session, item), {
          description: item.tool.tool.description,
          shown,
          signal,
          approvalLog,
          beforeAsking,
        }),
        signal,
      );
    }
  } catch (error) {
    // Aborted while awaiting approval: the saved request stays pending for a resume or an answer.
    if (signal.aborted) return leftOpen;
    outcome = {
      decision: "deny",
      decidedBy: "approval",
      reason: `The approval adapter failed: ${errorMessage(error)}`,
    };
  }
  journal.emit({
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

/** The Session's policy, with the tool's own `permission` (if it declares one) asked after the plugins' hooks. */
function policyFor(session: SessionContext, item: ToolExecution): PermissionPolicy {
  const tool = item.tool.tool;
  const own = tool.permission;
  if (!own) return session.policy;
  const resources = resourcesOf(session, item);
  const hook: ToolPermissionHook = (request, { signal }) =>
    own.call(tool, request, { signal, sandbox: session.sandbox, resources });
  return { ...session.policy, hooks: [...session.policy.hooks, hook] };
}

/** The receipt field of the usage of the child agents a call ran, if any called a model. */
function childUsageField(usage: readonly ChildUsage[] | undefined): { childUsage?: readonly ChildUsage[] } {
  return usage ? { childUsage: usage } : {};
}
