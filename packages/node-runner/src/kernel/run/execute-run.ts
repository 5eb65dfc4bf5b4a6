import type { ContentBlock, ErrorInfo, RunEvent, RunResult, StopReason } from "@castellan/harness";
import { CastellanError, errorMessage, runStopReason, textOf } from "@castellan/harness";
import { committedState, type Emit, projectSession, type SessionContext } from "../context/session-context.js";
import type { SessionModel } from "../context/session-model.js";
import { BudgetExceededError, checkBudget, remainingBudget, type UsageBudget } from "../context/usage-budget.js";
import { RunAbortedError, SessionStateError } from "../errors/errors.js";
import type { RunJournal } from "../journal/run-journal.js";
import type { TurnInfo } from "../plugins/types.js";
import type { SessionRecord } from "../store/records.js";
import { abortable } from "../util/abortable.js";
import { BatchState } from "./batch-state.js";
import { compactIfNeeded, needsCompaction } from "./compaction.js";
import { activateHostSkills } from "./host-activation.js";
import { settleInterrupted } from "./interrupted.js";
import type { JoinQueue } from "./join-queue.js";
import { callModel } from "./model-call.js";
import { notifyStateChanged, reportHookFailure } from "./state-notify.js";
import { runToolBatch } from "./tool-batch.js";

/** A turn-limit stop: the Run made as many model calls as it may. */
export class MaxTurnsError extends CastellanError {
  constructor(maxTurns: number) {
    super("max_turns", `The run reached its limit of ${maxTurns} turns without a final answer.`);
  }
}

/** How a Run begins: with new input, or by resuming the interrupted Run under its own id. */
export type RunMode =
  | { readonly kind: "new"; readonly input: readonly ContentBlock[]; readonly inputId?: string }
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
  /** Skills the host activates before the first projection. */
  readonly activateSkills?: readonly string[];
  /** Resolves once the Run's consumer has taken every event emitted so far. Default: at once. */
  readonly delivered?: () => Promise<void>;
}

/**
 * The turn loop of one Run: project the Program, call the model, settle its tool calls, and
 * repeat until a turn ends without tool calls (and no joined input or queued host state is
 * waiting). Records go through the Run's journal, which reports each event once what it
 * reports is durable. Resolves with the result, or rejects with the typed error the Run ended
 * with, after `run-end` is saved and reported.
 */
export async function executeRun(context: SessionContext, run: RunRequest, emit: Emit): Promise<RunResult> {
  const journal = context.journal.run(emit);
  try {
    return await turnLoop(context, run, journal);
  } finally {
    // The Run's events end with run-end, after anything still waiting for a save.
    await journal.settle();
  }
}

async function turnLoop(context: SessionContext, run: RunRequest, journal: RunJournal): Promise<RunResult> {
  const { runId, signal } = run;
  const emit = journal.emit;
  let started = false;
  // What the Run spent is read from the usage ledger: the same entries `session.usage()` sums,
  // including, for a resumed Run, what it spent before its process stopped.
  const spent = () => context.history.usage.runUsage(runId);
  let turnsThisRun = 0;
  try {
    if (signal.aborted) throw new RunAbortedError();
    let turn = await begin(context, run, journal);
    started = true;
    // A resumed Run whose final answer was saved before its process stopped ends with that answer.
    const answered = run.mode.kind === "resume" ? savedFinalAnswer(context) : undefined;
    if (answered) return await complete(context, run, journal, answered, turnsThisRun);
    while (true) {
      if (signal.aborted) throw new RunAbortedError();
      if (turnsThisRun >= context.limits.maxTurns) throw new MaxTurnsError(context.limits.maxTurns);
      checkBudget(run.budget, spent());
      turn++;
      turnsThisRun++;
      const info: TurnInfo = {
        agent: context.agent,
        sessionId: context.sessionId,
        runId,
        turn,
        signal,
        reportHookFailure: (hook, error) => reportHookFailure(journal, runId, hook, error),
      };
      for (const hook of context.hooks.turnStart) await abortable(Promise.resolve(hook(info)), signal);
      emit({ kind: "turn-start", runId, turn });
      // Each step below is skipped, not awaited, when it has nothing to do: most turns.
      if (context.history.state.pending.length > 0) await applyQueuedHostState(context, journal, runId, turn);
      if (turnsThisRun === 1 && run.activateSkills && run.activateSkills.length > 0) {
        await activateHostSkills(context, journal, run, turn, run.activateSkills);
      }

      const projection = projectSession(context, turn);
      context.inspection.observeProjection(projection, { runId, turn });
      const model =
        run.model.known ??
        (await abortable(run.model.resolve({ sessionId: context.sessionId, runId, signal }), signal));
      context.inspection.observeModel(model);
      if (needsCompaction(context, projection, model)) {
        const compaction = await compactIfNeeded(context, journal, { runId, projection, model, signal });
        // A summary is a model call of this Run (saved with its usage): it counts toward the budget.
        if (compaction?.usage) checkBudget(run.budget, spent());
      }
      const answer = await callModel(context, journal, { runId, turn, projection, model, signal, info }, () =>
        checkBudget(run.budget, spent()),
      );
      // The answer rides with what follows it (the batch's first append, or the Run's end) and
      // is reported once that is durable: one sync fewer per turn.
      journal.stage(
        [
          {
            kind: "assistant-message",
            runId,
            turn,
            message: answer.message,
            stopReason: answer.stopReason,
            model: model.specifier,
            ...(answer.usage ? { usage: answer.usage } : {}),
          },
          ...answer.hostedActivity,
        ],
        [{ kind: "assistant-message", runId, turn, message: answer.message, stopReason: answer.stopReason }],
      );

      if (answer.message.toolCalls.length > 0) {
        const visible = new Set(projection.tools.map((tool) => tool.name));
        await runToolBatch(context, journal, answer.message.toolCalls, {
          runId,
          turn,
          signal,
          visible,
          stopReason: answer.stopReason,
          ...(run.budget ? { budget: remainingBudget(run.budget, spent()) } : {}),
          ...(run.delivered ? { delivered: run.delivered } : {}),
        });
        emit({ kind: "turn-end", runId, turn });
        if (run.joined.size > 0) await takeJoined(journal, run);
        continue;
      }
      emit({ kind: "turn-end", runId, turn });
      // A host write queued during the Run, or joined input, is shown to the model before the Run ends.
      if (run.joined.size === 0 && context.history.state.pending.length === 0) {
        return await complete(context, run, journal, answer, turnsThisRun);
      }
      await journal.commit([]);
      await takeJoined(journal, run);
    }
  } catch (caught) {
    run.joined.close(runId);
    journal.discardStaged();
    const error =
      signal.aborted && !(caught instanceof RunAbortedError)
        ? new RunAbortedError(undefined, { cause: caught })
        : caught;
    const status = error instanceof RunAbortedError ? "aborted" : "failed";
    const info = errorInfo(error);
    // Record how a started Run ended, where the log still accepts it; the original error is what the caller gets.
    if (started) await journal.commit([{ kind: "run-end", runId, status, error: info }]).catch(() => undefined);
    // After a failed save ahead, what waited for it is dropped; how the Run ended is still reported.
    await journal.settle();
    emit({ kind: "run-end", runId, status, error: info });
    throw error;
  }
}

/**
 * Saves the Run's start (settling what an earlier Run left open first) or its resumption;
 * returns the last turn. A Run is resumed after its process stopped, or after it was aborted.
 */
async function begin(context: SessionContext, run: RunRequest, journal: RunJournal): Promise<number> {
  const { runId, mode, signal } = run;
  const { history } = context;
  if (mode.kind === "new") {
    const interrupted = settleInterrupted(context);
    const records: SessionRecord[] = [
      ...(interrupted?.records ?? []),
      { kind: "run-start", runId, input: mode.input, ...(mode.inputId !== undefined ? { inputId: mode.inputId } : {}) },
    ];
    const events: RunEvent[] = [];
    if (interrupted?.interruptedRunId !== undefined) {
      events.push({
        kind: "run-interrupted",
        runId,
        interruptedRunId: interrupted.interruptedRunId,
        toolCalls: interrupted.toolCalls,
      });
    }
    events.push({
      kind: "run-start",
      runId,
      sessionId: context.sessionId,
      input: mode.input,
      ...(mode.inputId !== undefined ? { inputId: mode.inputId } : {}),
    });
    await journal.commit(records, events);
    return 0;
  }
  const resumable = history.activeRun ?? history.abortedRun;
  if (resumable?.runId !== runId) {
    throw new SessionStateError("nothing_to_resume", `Run "${runId}" is neither interrupted nor aborted.`);
  }
  await journal.commit([{ kind: "run-resume", runId }], [{ kind: "run-resume", runId }]);
  const active = history.activeRun as NonNullable<typeof history.activeRun>;
  const turn = active.turn;
  if (history.open.size > 0) {
    // The interrupted batch is settled first; its visibility is that of its own turn.
    const projection = projectSession(context, turn);
    const visible = new Set(projection.tools.map((tool) => tool.name));
    const calls = [...history.open.values()].map((open) => open.call);
    await runToolBatch(context, journal, calls, {
      runId,
      turn,
      signal,
      visible,
      resume: { retryIdempotent: mode.retryIdempotent },
      ...(history.lastStopReason ? { stopReason: history.lastStopReason } : {}),
      ...(run.delivered ? { delivered: run.delivered } : {}),
    });
    journal.emit({ kind: "turn-end", runId, turn });
  } else if (active.batchOpen) {
    // Every call of the batch had settled before the stop: the writes their receipts carry
    // commit now, as the lost settlement would have committed them.
    const batch = new BatchState(committedState(context), context.program.initialState);
    for (const changes of active.batchWrites) batch.seed(changes);
    const changes = batch.pending;
    await journal.commit([
      { kind: "tool-batch-end", runId, turn, status: "committed", ...(changes ? { changes } : {}) },
    ]);
    if (changes) await notifyStateChanged(context, journal, { runId, turn, source: "tool", changes });
  }
  await takeJoined(journal, run);
  return turn;
}

/**
 * Saves and reports the Run's completion with its final answer (staged, or saved before a
 * stop). An answer cut off at the output limit completes the Run as `truncated`, never as a
 * plain success.
 */
async function complete(
  context: SessionContext,
  run: RunRequest,
  journal: RunJournal,
  answer: { readonly message: { readonly content: readonly ContentBlock[] }; readonly stopReason: StopReason },
  turns: number,
): Promise<RunResult> {
  const { runId } = run;
  const content = answer.message.content;
  const stopReason = runStopReason(answer.stopReason);
  await journal.commit([{ kind: "run-end", runId, status: "completed", stopReason }]);
  // Read after the save: the final answer's own usage is in the ledger now.
  const result: RunResult = {
    runId,
    content,
    text: textOf(content),
    turns,
    usage: context.history.usage.runUsage(runId),
    stopReason,
    truncated: stopReason === "max-tokens",
  };
  run.joined.close(runId);
  journal.emit({ kind: "run-end", runId, status: "completed", result });
  return result;
}

/**
 * The final answer of the active Run when it is the last thing saved (its process stopped
 * before `run-end`) and nothing waits to be shown to the model; undefined otherwise.
 */
function savedFinalAnswer(
  context: SessionContext,
): { readonly message: { readonly content: readonly ContentBlock[] }; readonly stopReason: StopReason } | undefined {
  const { history } = context;
  const last = history.messages.at(-1);
  if (!history.activeRun?.turn || last?.role !== "assistant" || last.toolCalls.length > 0) return undefined;
  if (history.state.pending.length > 0) return undefined;
  return { message: last, stopReason: history.lastStopReason ?? "end" };
}

/** Applies host writes queued with `session.setState` at the start of a turn. */
async function applyQueuedHostState(
  context: SessionContext,
  journal: RunJournal,
  runId: string,
  turn: number,
): Promise<void> {
  const changes = context.history.state.mergedQueue();
  if (!changes) return;
  await journal.commit([{ kind: "state-committed", source: "host", runId, turn, changes }]);
  await notifyStateChanged(context, journal, { runId, turn, source: "host", changes });
}

/** Saves input joined into the Run; returns whether there was any. */
async function takeJoined(journal: RunJournal, run: RunRequest): Promise<boolean> {
  const joined = run.joined.take();
  if (joined.length === 0) return false;
  try {
    await journal.commit(
      joined.map(({ input, inputId }) => ({
        kind: "run-input",
        runId: run.runId,
        input,
        ...(inputId !== undefined ? { inputId } : {}),
      })),
      joined.map(({ input, inputId }) => ({
        kind: "run-input",
        runId: run.runId,
        input,
        ...(inputId !== undefined ? { inputId } : {}),
      })),
    );
  } catch (error) {
    for (const entry of joined) entry.reject(error);
    throw error;
  }
  for (const entry of joined) entry.resolve();
  return true;
}

function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof CastellanError) return { code: error.code, message: error.message };
  return { code: "internal", message: errorMessage(error) };
}

export { BudgetExceededError };
