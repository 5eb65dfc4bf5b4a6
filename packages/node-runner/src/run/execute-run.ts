import type { ContentBlock, ErrorInfo, RunEvent, RunResult, StopReason } from "@castellan/harness";
import { CastellanError, runStopReason, textOf } from "@castellan/harness";
import { RunAbortedError, SessionStateError } from "../errors.js";
import type { SessionModel } from "../models/session-model.js";
import { committedState, type Emit, projectSession, type SessionCore } from "../session/session-core.js";
import type { SessionRecord } from "../store/records.js";
import { abortable } from "../util/abortable.js";
import { BatchState } from "./batch-state.js";
import { compactIfNeeded } from "./compaction.js";
import { settleInterrupted } from "./interrupted.js";
import type { JoinQueue } from "./join-queue.js";
import { callModel } from "./model-call.js";
import { Outbox } from "./outbox.js";
import { notifyStateChanged } from "./state-notify.js";
import { type Lead, runToolBatch } from "./tool-batch.js";
import { BudgetExceededError, checkBudget, type UsageBudget } from "./usage-budget.js";

/** A turn-limit stop: the Run made as many model calls as it may. */
export class MaxTurnsError extends CastellanError {
  constructor(maxTurns: number) {
    super("max_turns", `The run reached its limit of ${maxTurns} turns without a final answer.`);
  }
}

/** How a Run begins: with new input, or by resuming the interrupted Run under its own id. */
export type RunMode =
  | { readonly kind: "new"; readonly input: readonly ContentBlock[] }
  | { readonly kind: "resume"; readonly retryIdempotent: boolean };

/** What one Run is given. */
export interface RunRequest {
  readonly runId: string;
  readonly mode: RunMode;
  readonly signal: AbortSignal;
  readonly joined: JoinQueue;
  readonly budget: UsageBudget | undefined;
  /** The model of this Run: the Session's, or the one `RunOptions.model` chose. */
  readonly model: SessionModel;
}

/**
 * The turn loop of one Run: project the Program, call the model, settle its tool calls, and
 * repeat until a turn ends without tool calls (and no joined input or queued host state is
 * waiting). Every fact is persisted before it is reported. Resolves with the result, or
 * rejects with the typed error the Run ended with, after `run-end` is saved and reported.
 */
export async function executeRun(core: SessionCore, run: RunRequest, emitNow: Emit): Promise<RunResult> {
  const outbox = new Outbox(emitNow);
  try {
    return await turnLoop(core, run, outbox);
  } finally {
    // The Run's events end with run-end, after anything still waiting for a save.
    await outbox.settle();
  }
}

async function turnLoop(core: SessionCore, run: RunRequest, outbox: Outbox): Promise<RunResult> {
  const { runId, signal } = run;
  const emit = outbox.emit;
  let started = false;
  // What the Run spent is read from the usage ledger: the same entries `session.usage()` sums,
  // including, for a resumed Run, what it spent before its process stopped.
  const spent = () => core.history.usage.runUsage(runId);
  let turnsThisRun = 0;
  try {
    if (signal.aborted) throw new RunAbortedError();
    let turn = await begin(core, run, outbox);
    started = true;
    // A resumed Run whose final answer was saved before its process stopped ends with that answer.
    const answered = run.mode.kind === "resume" ? savedFinalAnswer(core) : undefined;
    if (answered) return await complete(core, run, emit, answered, turnsThisRun);
    while (true) {
      if (signal.aborted) throw new RunAbortedError();
      if (turnsThisRun >= core.limits.maxTurns) throw new MaxTurnsError(core.limits.maxTurns);
      checkBudget(run.budget, spent());
      turn++;
      turnsThisRun++;
      const info = { agent: { id: core.agent.id }, sessionId: core.sessionId, runId, turn };
      for (const hook of core.registry.hooks.turnStart) await abortable(Promise.resolve(hook(info)), signal);
      emit({ kind: "turn-start", runId, turn });
      await applyQueuedHostState(core, runId, turn, emit);

      const projection = projectSession(core, turn);
      core.observeProjection(projection, { runId, turn });
      const model = await abortable(run.model.resolve({ sessionId: core.sessionId, runId, signal }), signal);
      core.lastModel = model;
      const compaction = await compactIfNeeded(core, { runId, projection, model, signal, emit });
      // A summary is a model call of this Run (saved with its usage): it counts toward the budget.
      if (compaction?.usage) checkBudget(run.budget, spent());
      const answer = await callModel(core, { runId, turn, projection, model, signal, emit, info }, () =>
        checkBudget(run.budget, spent()),
      );
      // The answer is saved with what follows it (the batch's first append, or the Run's end),
      // and reported once saved: one sync fewer per turn.
      const answered: Lead = {
        records: [
          {
            kind: "assistant-message",
            runId,
            turn,
            message: answer.message,
            stopReason: answer.stopReason,
            model: model.specifier,
            ...(answer.usage ? { usage: answer.usage } : {}),
          },
        ],
        events: [{ kind: "assistant-message", runId, turn, message: answer.message, stopReason: answer.stopReason }],
      };

      if (answer.message.toolCalls.length > 0) {
        const visible = new Set(projection.tools.map((tool) => tool.name));
        await runToolBatch(core, answer.message.toolCalls, {
          runId,
          turn,
          signal,
          emit,
          outbox,
          visible,
          lead: answered,
          stopReason: answer.stopReason,
        });
        emit({ kind: "turn-end", runId, turn });
        await takeJoined(core, run, emit);
        continue;
      }
      const turnEnd: RunEvent = { kind: "turn-end", runId, turn };
      // A host write queued during the Run, or joined input, is shown to the model before the Run ends.
      if (run.joined.size === 0 && core.history.state.pending.length === 0) {
        const lead: Lead = { records: answered.records, events: [...answered.events, turnEnd] };
        return await complete(core, run, emit, answer, turnsThisRun, lead);
      }
      await core.persist(answered.records);
      for (const event of answered.events) emit(event);
      emit(turnEnd);
      await takeJoined(core, run, emit);
    }
  } catch (caught) {
    run.joined.close(runId);
    const error =
      signal.aborted && !(caught instanceof RunAbortedError)
        ? new RunAbortedError(undefined, { cause: caught })
        : caught;
    const status = error instanceof RunAbortedError ? "aborted" : "failed";
    const info = errorInfo(error);
    // Record how a started Run ended, where the log still accepts it; the original error is what the caller gets.
    if (started) await core.persist([{ kind: "run-end", runId, status, error: info }]).catch(() => undefined);
    // After a failed save ahead, what waited for it is dropped; how the Run ended is still reported.
    await outbox.settle();
    emit({ kind: "run-end", runId, status, error: info });
    throw error;
  }
}

/**
 * Saves the Run's start (settling what an earlier Run left open first) or its resumption;
 * returns the last turn. A Run is resumed after its process stopped, or after it was aborted.
 */
async function begin(core: SessionCore, run: RunRequest, outbox: Outbox): Promise<number> {
  const { runId, mode, signal } = run;
  const emit = outbox.emit;
  if (mode.kind === "new") {
    const interrupted = settleInterrupted(core);
    const records: SessionRecord[] = [...(interrupted?.records ?? []), { kind: "run-start", runId, input: mode.input }];
    await core.persist(records);
    if (interrupted?.interruptedRunId !== undefined) {
      emit({
        kind: "run-interrupted",
        runId,
        interruptedRunId: interrupted.interruptedRunId,
        toolCalls: interrupted.toolCalls,
      });
    }
    emit({ kind: "run-start", runId, sessionId: core.sessionId, input: mode.input });
    return 0;
  }
  const resumable = core.history.activeRun ?? core.history.abortedRun;
  if (resumable?.runId !== runId) {
    throw new SessionStateError("nothing_to_resume", `Run "${runId}" is neither interrupted nor aborted.`);
  }
  await core.persist([{ kind: "run-resume", runId }]);
  emit({ kind: "run-resume", runId });
  const active = core.history.activeRun as NonNullable<typeof core.history.activeRun>;
  const turn = active.turn;
  if (core.history.open.size > 0) {
    // The interrupted batch is settled first; its visibility is that of its own turn.
    const projection = projectSession(core, turn);
    const visible = new Set(projection.tools.map((tool) => tool.name));
    const calls = [...core.history.open.values()].map((open) => open.call);
    await runToolBatch(core, calls, {
      runId,
      turn,
      signal,
      emit,
      outbox,
      visible,
      resume: { retryIdempotent: mode.retryIdempotent },
      ...(core.history.lastStopReason ? { stopReason: core.history.lastStopReason } : {}),
    });
    emit({ kind: "turn-end", runId, turn });
  } else if (active.batchOpen) {
    // Every call of the batch had settled before the stop: the writes their receipts carry
    // commit now, as the lost settlement would have committed them.
    const batch = new BatchState(committedState(core), core.program.initialState);
    for (const changes of active.batchWrites) batch.seed(changes);
    const changes = batch.pending;
    await core.persist([{ kind: "tool-batch-end", runId, turn, status: "committed", ...(changes ? { changes } : {}) }]);
    if (changes) await notifyStateChanged(core, { runId, turn, source: "tool", changes }, emit);
  }
  await takeJoined(core, run, emit);
  return turn;
}

/**
 * Saves and reports the Run's completion with its final answer. An answer cut off at the
 * output limit completes the Run as `truncated`, never as a plain success.
 */
async function complete(
  core: SessionCore,
  run: RunRequest,
  emit: Emit,
  answer: { readonly message: { readonly content: readonly ContentBlock[] }; readonly stopReason: StopReason },
  turns: number,
  lead: Lead = { records: [], events: [] },
): Promise<RunResult> {
  const { runId } = run;
  const content = answer.message.content;
  const stopReason = runStopReason(answer.stopReason);
  await core.persist([...lead.records, { kind: "run-end", runId, status: "completed", stopReason }]);
  // Read after the save: the final answer's own usage is in the ledger now.
  const result: RunResult = {
    runId,
    content,
    text: textOf(content),
    turns,
    usage: core.history.usage.runUsage(runId),
    stopReason,
    truncated: stopReason === "max-tokens",
  };
  run.joined.close(runId);
  for (const event of lead.events) emit(event);
  emit({ kind: "run-end", runId, status: "completed", result });
  return result;
}

/**
 * The final answer of the active Run when it is the last thing saved (its process stopped
 * before `run-end`) and nothing waits to be shown to the model; undefined otherwise.
 */
function savedFinalAnswer(
  core: SessionCore,
): { readonly message: { readonly content: readonly ContentBlock[] }; readonly stopReason: StopReason } | undefined {
  const last = core.history.messages.at(-1);
  if (!core.history.activeRun?.turn || last?.role !== "assistant" || last.toolCalls.length > 0) return undefined;
  if (core.history.state.pending.length > 0) return undefined;
  return { message: last, stopReason: core.history.lastStopReason ?? "end" };
}

/** Applies host writes queued with `session.setState` at the start of a turn. */
async function applyQueuedHostState(core: SessionCore, runId: string, turn: number, emit: Emit): Promise<void> {
  const changes = core.history.state.mergedQueue();
  if (!changes) return;
  await core.persist([{ kind: "state-committed", source: "host", runId, turn, changes }]);
  await notifyStateChanged(core, { runId, turn, source: "host", changes }, emit);
}

/** Saves input joined into the Run; returns whether there was any. */
async function takeJoined(core: SessionCore, run: RunRequest, emit: Emit): Promise<boolean> {
  const joined = run.joined.take();
  if (joined.length === 0) return false;
  try {
    await core.persist(joined.map(({ input }) => ({ kind: "run-input", runId: run.runId, input })));
  } catch (error) {
    for (const entry of joined) entry.reject(error);
    throw error;
  }
  for (const entry of joined) {
    emit({ kind: "run-input", runId: run.runId, input: entry.input });
    entry.resolve();
  }
  return true;
}

function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof CastellanError) return { code: error.code, message: error.message };
  return { code: "internal", message: error instanceof Error ? error.message : String(error) };
}

export { BudgetExceededError };
