import type { HostedToolCall, JsonValue, Message, StopReason, ToolCall, ToolReceipt } from "@castellan/harness";
import { deepFreeze } from "@castellan/harness";
import { SessionLogError } from "../errors/errors.js";
import type {
  ApprovalAnswerRecord,
  ApprovalRequestRecord,
  SessionOpenRecord,
  SessionRecord,
} from "../store/records.js";
import { StateFold } from "./state-fold.js";
import { estimateMessageTokens } from "./token-estimate.js";
import { UsageLedger } from "./usage-ledger.js";

/** The text given to the model for a call whose outcome was never recorded. */
export const unrecordedOutcome =
  "No result was recorded for this call: its run was interrupted before the call settled, so its outcome is unknown.";

/** A tool call of the latest assistant message that has no receipt yet. */
export interface OpenCall {
  readonly call: ToolCall;
  readonly runId: string;
  readonly turn: number;
  /** Its intent (tool-start) was saved: it may have run. */
  started: boolean;
  approval?: { readonly request: ApprovalRequestRecord; answer?: ApprovalAnswerRecord };
}

/** The Run whose `run-end` has not been saved yet. */
export interface ActiveRunFacts {
  readonly runId: string;
  /** The last turn whose model answer was saved (0 before the first). */
  turn: number;
  /** A tool batch started and has not settled. */
  batchOpen: boolean;
  /** The tentative state writes of the open batch's settled calls, in receipt order. */
  batchWrites: Readonly<Record<string, JsonValue>>[];
}

/**
 * What Run code may read of the fold: nothing here changes it. Only the Session's journal
 * applies records (`SessionHistory.apply`).
 */
export interface HistoryView {
  readonly opening: SessionOpenRecord | undefined;
  readonly inputIds: ReadonlySet<string>;
  /** What the model is sent: a compaction summary, if any, then the messages after it. */
  readonly messages: readonly Message[];
  readonly estimatedTokens: number;
  readonly lastStopReason: StopReason | undefined;
  readonly compactions: number;
  readonly activeRun: Readonly<ActiveRunFacts> | undefined;
  readonly abortedRun: { readonly runId: string; readonly turn: number } | undefined;
  readonly state: Pick<StateFold, "view" | "mergedQueue" | "pending" | "committedWrites">;
  readonly usage: Pick<UsageLedger, "report" | "runUsage">;
  readonly open: ReadonlyMap<string, Readonly<OpenCall>>;
  toolCalls(name: string): readonly ToolReceipt[];
  hostedToolCalls(name: string): readonly HostedToolCall[];
}

/**
 * The fold of a Session's records: the conversation as the model sees it (from the last
 * compaction on), receipts, state, usage, open calls, and the unfinished Run. Applying a
 * record is O(1) (a compaction is O(kept messages)), so replay is linear and each turn's
 * bookkeeping does not grow with history.
 */
export class SessionHistory implements HistoryView {
  opening: SessionOpenRecord | undefined;
  /** What the model is sent: a compaction summary, if any, then the messages after it. */
  messages: Message[] = [];
  /** The estimated tokens of `messages`. */
  estimatedTokens = 0;
  /** How the latest saved assistant answer ended. */
  lastStopReason: StopReason | undefined;
  /** How many Runs were started. */
  runCount = 0;
  /** Every input identity the saved inputs carry (`run(input, { inputId })`, `join`). */
  readonly inputIds = new Set<string>();
  compactions = 0;
  /** The Run without a saved `run-end`, if any. */
  activeRun: ActiveRunFacts | undefined;
  /**
   * The latest Run, when it ended `aborted` and no Run has started since: it can be resumed.
   * Its calls that never started are still open (they have no receipt).
   */
  abortedRun: { readonly runId: string; readonly turn: number } | undefined;
  readonly state = new StateFold();
  readonly usage = new UsageLedger();
  private readonly receipts = new Map<string, ToolReceipt[]>();
  private readonly hosted = new Map<string, HostedToolCall[]>();
  /** Calls of the latest assistant message without a receipt, in call order. */
  readonly open = new Map<string, OpenCall>();
  private lastRunId: string | undefined;

  /** Folds one record in; throws SessionLogError when it does not fit the history before it. */
  apply(record: SessionRecord, position?: number): void {
    switch (record.kind) {
      case "session-open":
        if (this.opening) throw this.fault("a second session-open record", position);
        this.opening = record;
        return;
      case "run-start":
        if (this.activeRun) throw this.fault(`run-start while run "${this.activeRun.runId}" has no run-end`, position);
        this.settleUnrecorded();
        this.abortedRun = undefined;
        this.runCount++;
        this.lastRunId = record.runId;
        this.activeRun = { runId: record.runId, turn: 0, batchOpen: false, batchWrites: [] };
        this.push({ role: "user", content: record.input });
        if (record.inputId !== undefined) this.inputIds.add(record.inputId);
        return;
      case "run-input":
        this.expectActive(record.runId, position);
        this.settleUnrecorded();
        this.push({ role: "user", content: record.input });
        if (record.inputId !== undefined) this.inputIds.add(record.inputId);
        return;
      case "run-resume":
        if (this.abortedRun?.runId === record.runId && !this.activeRun) {
          // An aborted Run taken up again: it is active again, from the turn it had reached.
          this.activeRun = { runId: record.runId, turn: this.abortedRun.turn, batchOpen: false, batchWrites: [] };
          this.abortedRun = undefined;
          return;
        }
        this.expectActive(record.runId, position);
        return;
      case "assistant-message":
        this.expectActive(record.runId, position);
        this.settleUnrecorded();
        this.push(record.message);
        this.lastStopReason = record.stopReason;
        (this.activeRun as ActiveRunFacts).turn = record.turn;
        for (const call of record.message.toolCalls) {
          this.open.set(call.id, { call, runId: record.runId, turn: record.turn, started: false });
        }
        if (record.usage) {
          this.usage.record({
            runId: record.runId,
            turn: record.turn,
            agentId: this.opening?.agentId ?? "",
            model: record.model,
            purpose: "turn",
            usage: record.usage,
          });
        }
        return;
      case "hosted-tool-activity": {
        this.expectActive(record.runId, position);
        // Records are not changed after they are saved, so the fact shares (and freezes) their values.
        const call: HostedToolCall = deepFreeze({
          callId: record.callId,
          queries: record.queries,
          sources: record.sources,
          ok: record.ok,
          runId: record.runId,
          turn: record.turn,
        });
        const list = this.hosted.get(record.toolName);
        if (list) list.push(call);
        else this.hosted.set(record.toolName, [call]);
        return;
      }
      case "tool-batch-start": {
        const active = this.expectActive(record.runId, position);
        active.batchOpen = true;
        active.batchWrites = [];
        return;
      }
      case "tool-start": {
        const open = this.open.get(record.toolCall.id);
        if (!open) {
          throw this.fault(`tool-start for call "${record.toolCall.id}", which is not awaiting a result`, position);
        }
        open.started = true;
        return;
      }
      case "approval-request": {
        const open = this.open.get(record.toolCallId);
        if (!open)
          throw this.fault(
            `approval-request for call "${record.toolCallId}", which is not awaiting a result`,
            position,
          );
        open.approval = { request: record };
        return;
      }
      case "approval-answer": {
        const approval = this.open.get(record.toolCallId)?.approval;
        if (!approval)
          throw this.fault(`approval-answer for call "${record.toolCallId}", which awaits no approval`, position);
        approval.answer = record;
        return;
      }
      case "tool-end":
        this.settle(
          record.toolCallId,
          record.toolName,
          record.input,
          record.result,
          record.runId,
          record.turn,
          position,
        );
        if (record.stateChanges && this.activeRun?.batchOpen) this.activeRun.batchWrites.push(record.stateChanges);
        // A child's model calls count for the delegating Run (its budget) and name the child.
        for (const entry of record.childUsage ?? []) {
          this.usage.record({
            runId: record.runId,
            turn: record.turn,
            agentId: entry.agentId,
            model: entry.model,
            purpose: "turn",
            usage: entry.usage,
            toolCallId: record.toolCallId,
          });
        }
        return;
      case "tool-batch-end": {
        const active = this.expectActive(record.runId, position);
        active.batchOpen = false;
        active.batchWrites = [];
        if (record.status === "committed" && record.changes) {
          this.state.commit({ source: "tool", runId: record.runId, turn: record.turn, changes: record.changes });
        }
        return;
      }
      case "state-queued":
        this.state.queue(record.changes);
        return;
      case "state-committed":
        this.state.commitQueued(record.runId, record.turn, record.changes);
        return;
      case "compaction": {
        const kept = Math.min(record.keptMessages, this.messages.length);
        const summary: Message = { role: "user", content: [{ type: "text", text: record.summary }] };
        this.messages = [summary, ...this.messages.slice(this.messages.length - kept)];
        this.estimatedTokens = this.messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
        this.compactions++;
        if (record.usage) {
          this.usage.record({
            runId: record.runId,
            turn: undefined,
            agentId: this.opening?.agentId ?? "",
            model: record.model,
            purpose: "compaction",
            usage: record.usage,
          });
        }
        return;
      }
      case "run-end":
        if (this.activeRun?.runId === record.runId) {
          this.abortedRun =
            record.status === "aborted" ? { runId: record.runId, turn: this.activeRun.turn } : undefined;
          this.activeRun = undefined;
        }
        return;
    }
  }

  /** Settled receipts of a tool, oldest first: a frozen snapshot. */
  toolCalls(name: string): readonly ToolReceipt[] {
    return Object.freeze(this.receipts.get(name)?.slice() ?? []);
  }

  /** Calls of a provider-hosted tool, oldest first: a frozen snapshot. */
  hostedToolCalls(name: string): readonly HostedToolCall[] {
    return Object.freeze(this.hosted.get(name)?.slice() ?? []);
  }

  /** The id of the most recent Run, if any. */
  get latestRunId(): string | undefined {
    return this.lastRunId;
  }

  private push(message: Message): void {
    this.messages.push(message);
    this.estimatedTokens += estimateMessageTokens(message);
  }

  private settle(
    toolCallId: string,
    toolName: string,
    input: JsonValue,
    result: ToolReceipt["result"],
    runId: string,
    turn: number,
    position: number | undefined,
  ): void {
    if (!this.open.delete(toolCallId)) {
      throw this.fault(`tool-end for call "${toolCallId}", which is not awaiting a result`, position);
    }
    this.push({ role: "tool", toolCallId, toolName, content: result.content, isError: result.isError });
    // Records are not changed after they are saved, so the receipt shares (and freezes) their values.
    const receipt: ToolReceipt = deepFreeze({
      toolCallId,
      name: toolName,
      input,
      result,
      ok: !result.isError,
      runId,
      turn,
    });
    const list = this.receipts.get(toolName);
    if (list) list.push(receipt);
    else this.receipts.set(toolName, [receipt]);
  }

  /**
   * A safety net for histories whose interrupted calls were never settled in the log: every
   * provider needs a result for every call, so the model is told the outcome is unknown.
   */
  private settleUnrecorded(): void {
    if (this.open.size === 0) return;
    for (const { call } of this.open.values()) {
      this.push({
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: unrecordedOutcome }],
        isError: true,
      });
    }
    this.open.clear();
  }

  private expectActive(runId: string, position: number | undefined): ActiveRunFacts {
    if (this.activeRun?.runId !== runId) throw this.fault(`a record of run "${runId}", which is not running`, position);
    return this.activeRun;
  }

  private fault(what: string, position: number | undefined): SessionLogError {
    return new SessionLogError(
      "session_log_corrupt",
      `The saved history has ${what}${position ? ` (record ${position})` : ""}.`,
      position ? { line: position } : {},
    );
  }
}
