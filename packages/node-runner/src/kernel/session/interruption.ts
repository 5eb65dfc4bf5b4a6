import type { JsonValue } from "@castellan/harness";
import type { HistoryView } from "../history/session-history.js";
import type { ApprovalRequestRecord } from "../store/records.js";

/** A call of an interrupted Run that has no receipt. */
export interface UnsettledCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonValue;
  /** `started`: its intent was saved, so it may have run; `not-started`: it never ran. */
  readonly state: "started" | "not-started" | "awaiting-approval" | "approved" | "denied";
  /** Whether its tool is declared idempotent (only such a call may be retried on resume). */
  readonly idempotent: boolean;
}

/** A Run that can be resumed: one a stopped process left without `run-end`, or one that was aborted. */
export interface InterruptedRun {
  readonly runId: string;
  /** `interrupted`: its process stopped before it settled; `aborted`: its signal aborted it. */
  readonly status: "interrupted" | "aborted";
  /** The last turn whose model answer was saved. */
  readonly turn: number;
  readonly unsettled: readonly UnsettledCall[];
}

/** A saved approval request with no answer yet: the saved request without its record kind. */
export type PendingApproval = Omit<ApprovalRequestRecord, "kind">;

/** Describes the Run of a history that can be resumed: unfinished, or aborted with nothing since. */
export function interruptedRunOf(
  history: HistoryView,
  idempotent: (toolName: string) => boolean = () => false,
): InterruptedRun | undefined {
  const active = history.activeRun ?? history.abortedRun;
  if (!active) return undefined;
  const unsettled = [...history.open.values()].map((open): UnsettledCall => {
    const state = open.started
      ? "started"
      : open.approval?.answer
        ? open.approval.answer.decision === "allow"
          ? "approved"
          : "denied"
        : open.approval
          ? "awaiting-approval"
          : "not-started";
    return {
      toolCallId: open.call.id,
      toolName: open.call.name,
      input: open.call.input,
      state,
      idempotent: idempotent(open.call.name),
    };
  });
  return Object.freeze({
    runId: active.runId,
    status: history.activeRun ? ("interrupted" as const) : ("aborted" as const),
    turn: active.turn,
    unsettled: Object.freeze(unsettled),
  });
}

/** The saved approval requests without an answer. */
export function pendingApprovalsOf(history: HistoryView): readonly PendingApproval[] {
  const pending: PendingApproval[] = [];
  for (const open of history.open.values()) {
    const approval = open.approval;
    if (!approval || approval.answer || open.started) continue;
    const { runId, turn, toolCallId, toolName, input, readOnly, reason, admission } = approval.request;
    pending.push(
      Object.freeze({
        runId,
        turn,
        toolCallId,
        toolName,
        input,
        readOnly,
        ...(reason ? { reason } : {}),
        ...(admission !== undefined ? { admission } : {}),
      }),
    );
  }
  return Object.freeze(pending);
}
