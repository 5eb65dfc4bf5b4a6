// A store driven alone, the way the Runner drives it in a Run of one tool call a turn: no
// runner, no model, so what is left is the store's own cost per turn.
import type { SessionRecord, SessionStore } from "@castellan/node-runner";
import type { TurnTimings } from "../stats.ts";

/** Per-turn times of one store-alone Run. */
export interface AppendLoopTimings extends TurnTimings {
  /**
   * `calls[t - 1]`: time spent inside the `append` calls of turn t until each returned (its
   * validation, encoding, copying; not the write or sync), ms.
   */
  readonly calls: readonly number[];
  /** Records appended, session-open included. */
  readonly records: number;
}

/**
 * The records of tool-call turn `turn`, as the Runner saves them for a read-only call with the
 * openai-compatible adapter: the answer, the batch's start and the call's intent in one append
 * (waited for: the intent must be durable before the tool runs); the receipt and the batch's end
 * in the next, saved ahead (its sync shared with the next turn's first append).
 */
export function turnRecords(runId: string, turn: number): { intent: SessionRecord[]; receipt: SessionRecord[] } {
  const id = `call_${String(turn).padStart(6, "0")}`;
  const toolCall = { id, name: "lookup", input: { n: turn } };
  return {
    intent: [
      {
        kind: "assistant-message",
        runId,
        turn,
        message: { role: "assistant", content: [], toolCalls: [toolCall] },
        stopReason: "tool-calls",
        model: "openai-compatible/bench-model",
        usage: { inputTokens: 12 * turn, outputTokens: 8 },
      },
      { kind: "tool-batch-start", runId, turn, toolCallIds: [id] },
      { kind: "tool-start", runId, turn, toolCall },
    ],
    receipt: [
      {
        kind: "tool-end",
        runId,
        turn,
        toolCallId: id,
        toolName: "lookup",
        input: { n: turn },
        result: { content: [{ type: "text", text: `entry ${turn}` }], isError: false },
      },
      { kind: "tool-batch-end", runId, turn, status: "committed" },
    ],
  };
}

/**
 * Opens a new Session `sessionId` of `store` and appends a Run of `turns` turns to it: turns-1
 * tool-call turns (see {@link turnRecords}), then the final answer and run-end. A turn's time
 * runs from its first append to the next turn's first append (the last turn: to its durable end),
 * so it covers its intent's sync and the receipt's write; the receipt's sync is shared with the
 * next turn's intent, as in a Run.
 */
export async function runAppendLoop(options: {
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly turns: number;
}): Promise<AppendLoopTimings> {
  const { store, sessionId, turns } = options;
  const runId = `run-${sessionId}`;
  const log = await store.open(sessionId);
  try {
    let records = 0;
    const calls: number[] = [];
    const starts: number[] = [];
    /** Appends `batch`, adds the time the call took to the turn's, returns its outcome. */
    const append = (batch: SessionRecord[], shareSync: boolean): Promise<void> => {
      const before = performance.now();
      const durable = log.append(batch, shareSync ? { shareSync } : undefined);
      calls[calls.length - 1] = (calls.at(-1) ?? 0) + performance.now() - before;
      records += batch.length;
      return durable;
    };
    const begin = performance.now();
    calls.push(0);
    await append(
      [
        { kind: "session-open", formatVersion: 1, sessionId, agentId: "bench.store-growth", params: {} },
        { kind: "run-start", runId, input: [{ type: "text", text: `Look up ${turns} entries.` }] },
      ],
      false,
    );
    calls.pop();
    let ahead: Promise<void> = Promise.resolve();
    for (let turn = 1; turn < turns; turn++) {
      const { intent, receipt } = turnRecords(runId, turn);
      starts.push(performance.now());
      calls.push(0);
      await append(intent, false);
      await ahead;
      ahead = append(receipt, true);
      // Awaited by the next turn; a failure also rejects the next append, which throws.
      ahead.catch(() => {});
    }
    starts.push(performance.now());
    calls.push(0);
    await append(
      [
        {
          kind: "assistant-message",
          runId,
          turn: turns,
          message: { role: "assistant", content: [{ type: "text", text: `done after ${turns} turns` }], toolCalls: [] },
          stopReason: "end",
          model: "openai-compatible/bench-model",
        },
        { kind: "run-end", runId, status: "completed", stopReason: "end" },
      ],
      false,
    );
    await ahead;
    const end = performance.now();
    starts.push(end);
    const durations = starts.slice(1).map((start, index) => start - (starts[index] as number));
    return { durations, calls, totalMs: end - begin, records };
  } finally {
    await log.close();
  }
}
