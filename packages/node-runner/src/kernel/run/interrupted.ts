import type { ToolResult } from "@castellan/harness";
import type { SessionContext } from "../context/session-context.js";
import { unrecordedOutcome } from "../history/session-history.js";
import type { SessionRecord } from "../store/records.js";
import { errorResult } from "../tools/tool-output.js";

/** What closing an earlier Run's loose ends takes, before a new Run starts. */
export interface InterruptedSettlement {
  /** Set when the earlier Run had no `run-end` (its process stopped): it is now saved as interrupted. */
  readonly interruptedRunId: string | undefined;
  readonly records: readonly SessionRecord[];
  readonly toolCalls: readonly { toolCallId: string; toolName: string; outcome: "unknown" | "not-run" }[];
}

const notRun = "Not run: its run was interrupted before this call started.";
const notRunAfterEnd = "Not run: its run ended (aborted or failed) before this call started.";

/**
 * When a new Run starts, what an earlier Run left open is settled first, never re-run. A Run
 * whose process stopped before it settled: a call whose intent was saved gets an "outcome
 * unknown" receipt (a read-only one, which has no effect to be unsure of, a "not run" one),
 * a call that never started a "not run" one, an open batch is discarded,
 * and the Run ends as `interrupted`. A Run that ended aborted (or failed) with calls that never
 * started: each gets a "not run" receipt. Undefined when nothing is left open.
 */
export function settleInterrupted(context: SessionContext): InterruptedSettlement | undefined {
  const { history } = context;
  const active = history.activeRun;
  if (!active && history.open.size === 0) return undefined;
  const records: SessionRecord[] = [];
  const toolCalls: InterruptedSettlement["toolCalls"][number][] = [];
  for (const open of history.open.values()) {
    // A read-only call has no effect that may have happened: even one that started did not "run".
    const bound = context.tools.get(open.call.name);
    const mayHaveRun = open.started && !(bound?.kind === "local" && bound.tool.readOnly);
    const outcome = mayHaveRun ? "unknown" : "not-run";
    const result: ToolResult = errorResult(mayHaveRun ? unrecordedOutcome : active ? notRun : notRunAfterEnd);
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
  if (!active) return { interruptedRunId: undefined, records, toolCalls };
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
