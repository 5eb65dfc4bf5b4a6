import type { Message, ToolCall, ToolReceipt } from "@castellan/harness";
import { deepFreeze } from "@castellan/harness";
import { SessionLogError } from "../errors.js";
import type { SessionOpenRecord, SessionRecord } from "../store/records.js";

/** The text given to the model for a call whose outcome was never recorded. */
export const unrecordedOutcome =
  "No result was recorded for this call: its run was interrupted before the call settled, so its outcome is unknown.";

/**
 * The fold of a Session's records: the conversation as the model sees it, the receipts, and
 * the Session's identity. Applying a record is O(1), so replay is linear and each turn's
 * bookkeeping does not grow with history.
 */
export class SessionHistory {
  opening: SessionOpenRecord | undefined;
  /** The conversation; grows by appending only. */
  readonly messages: Message[] = [];
  /** How many Runs were started. */
  runCount = 0;
  private readonly receipts = new Map<string, ToolReceipt[]>();
  /** Tool calls of the latest assistant message that have no receipt yet, by id. */
  private readonly open = new Map<string, ToolCall>();
  private lastRunId: string | undefined;

  /** Folds one record in; throws SessionLogError when it does not fit the history before it. */
  apply(record: SessionRecord, position?: number): void {
    switch (record.kind) {
      case "session-open":
        if (this.opening) throw this.fault("a second session-open record", position);
        this.opening = record;
        return;
      case "run-start":
        this.settleUnrecorded();
        this.runCount++;
        this.lastRunId = record.runId;
        this.messages.push({ role: "user", content: record.input });
        return;
      case "assistant-message":
        this.settleUnrecorded();
        this.messages.push(record.message);
        for (const call of record.message.toolCalls) {
          this.open.set(call.id, call);
        }
        return;
      case "tool-start":
        if (!this.open.has(record.toolCall.id)) {
          throw this.fault(
            `tool-start for call "${record.toolCall.id}", which the latest assistant message did not ask for`,
            position,
          );
        }
        return;
      case "tool-end": {
        if (!this.open.delete(record.toolCallId)) {
          throw this.fault(`tool-end for call "${record.toolCallId}", which is not awaiting a result`, position);
        }
        this.messages.push({
          role: "tool",
          toolCallId: record.toolCallId,
          toolName: record.toolName,
          content: record.result.content,
          isError: record.result.isError,
        });
        const receipt: ToolReceipt = deepFreeze({
          toolCallId: record.toolCallId,
          name: record.toolName,
          // Records are not changed after they are saved, so the receipt shares (and freezes) their values.
          input: record.input,
          result: record.result,
          ok: !record.result.isError,
          runId: record.runId,
          turn: record.turn,
        });
        const list = this.receipts.get(record.toolName);
        if (list) list.push(receipt);
        else this.receipts.set(record.toolName, [receipt]);
        return;
      }
      case "run-end":
        return;
    }
  }

  /** Settled receipts of a tool, oldest first. */
  toolCalls(name: string): readonly ToolReceipt[] {
    // A frozen copy: the caller keeps a snapshot, and cannot alter the Session's receipts.
    return Object.freeze(this.receipts.get(name)?.slice() ?? []);
  }

  /** The id of the most recent Run, if any. */
  get latestRunId(): string | undefined {
    return this.lastRunId;
  }

  /**
   * Calls left without a receipt by an interrupted Run get a result saying so before the
   * conversation goes on, because every provider needs a result for every call.
   */
  private settleUnrecorded(): void {
    if (this.open.size === 0) return;
    for (const call of this.open.values()) {
      this.messages.push({
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: unrecordedOutcome }],
        isError: true,
      });
    }
    this.open.clear();
  }

  private fault(what: string, position: number | undefined): SessionLogError {
    return new SessionLogError(
      "session_log_corrupt",
      `The saved history has ${what}${position ? ` (record ${position})` : ""}.`,
      {
        ...(position ? { line: position } : {}),
      },
    );
  }
}
