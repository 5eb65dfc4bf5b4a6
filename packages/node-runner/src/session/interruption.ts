import type { JsonValue } from "@castellan/harness";
import type { SessionHistory } from "../history/session-history.js";
import type { ApprovalRequestRecord } from "../store/records.js";
import type { SessionCore } from "./session-core.js";

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

/** A Run that a stopped process left without `run-end`. */
export interface InterruptedRun {
  readonly runId: string;
  /** The last turn whose model answer was saved. */
  readonly turn: number;
  readonly unsettled: readonly UnsettledCall[];
}

/** A saved approval request with no answer yet: the saved request without its record kind. */
export type PendingApproval = Omit<ApprovalRequestRecord, "kind">;

/** Describes the unfinished Run of a replayed history. */
export function interruptedRunOf(
  history: SessionHistory,
  idempotent: (toolName: string) => boolean = () => false,
): InterruptedRun | undefined {
  const active = history.activeRun;
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
  return Object.freeze({ runId: active.runId, turn: active.turn, unsettled: Object.freeze(unsettled) });
}

/** The saved approval requests without an answer. */
export function pendingApprovalsOf(core: SessionCore): readonly PendingApproval[] {
  const pending: PendingApproval[] = [];
  for (const open of core.history.open.values()) {
    const approval = open.approval;
    if (!approval || approval.answer || open.started) continue;
    const { runId, turn, toolCallId, toolName, input, readOnly, reason } = approval.request;
    pending.push(Object.freeze({ runId, turn, toolCallId, toolName, input, readOnly, ...(reason ? { reason } : {}) }));
  }
  return Object.freeze(pending);
}
