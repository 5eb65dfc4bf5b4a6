import type { ToolResult } from "@castellan/harness";
import { unrecordedOutcome } from "../history/session-history.js";
import type { SessionCore } from "../session/session-core.js";
import type { SessionRecord } from "../store/records.js";
import { errorResult } from "../tools/tool-output.js";

/** The calls an interrupted Run left without receipts. */
export interface InterruptedSettlement {
  readonly interruptedRunId: string;
  readonly records: readonly SessionRecord[];
  readonly toolCalls: readonly { toolCallId: string; toolName: string; outcome: "unknown" | "not-run" }[];
}

const notRun = "Not run: its run was interrupted before this call started.";

/**
 * When a new Run starts on a Session whose previous Run stopped without settling (its
 * process died), that Run is settled first, never re-run: a call whose intent was saved gets
 * an "outcome unknown" receipt, a call that never started a "not run" one, an open batch is
 * discarded, and the Run ends as `interrupted`.
 */
export function settleInterrupted(core: SessionCore): InterruptedSettlement | undefined {
  const active = core.history.activeRun;
  if (!active) return undefined;
  const records: SessionRecord[] = [];
  const toolCalls: InterruptedSettlement["toolCalls"][number][] = [];
  for (const open of core.history.open.values()) {
    const outcome = open.started ? "unknown" : "not-run";
    const result: ToolResult = errorResult(open.started ? unrecordedOutcome : notRun);
    records.push({
      kind: "tool-end",
      runId: open.runId,
      turn: open.turn,
      toolCallId: open.call.id,
      toolName: open.call.name,
      input: open.call.input,
      result,
    });
    toolCalls.push({ toolCallId: open.call.id, toolName: open.call.name, outcome });
  }
  if (active.batchOpen) {
    records.push({
      kind: "tool-batch-end",
      runId: active.runId,
      turn: active.turn,
      status: "discarded",
      reason: "The run was interrupted before the batch settled.",
    });
  }
  records.push({ kind: "run-end", runId: active.runId, status: "interrupted" });
  return { interruptedRunId: active.runId, records, toolCalls };
}
