import type { SessionRecord, SessionSummary } from "@castellan/node-runner";

/** How the last Run of a Session stands: its `run-end` status, or `running` / `interrupted` without one. */
export type LastRunStatus = "completed" | "aborted" | "failed" | "interrupted" | "running";

/** One line of `castellan sessions`, and one element of its `--json` array. */
export interface SessionRow {
  readonly sessionId: string;
  /** The `workspace` param: the file URL of the directory the Session works in, or null. */
  readonly workspace: string | null;
  readonly updatedAt: string;
  /** How many Runs were started. */
  readonly runs: number;
  /** Null for a Session without a Run. */
  readonly lastRunStatus: LastRunStatus | null;
  /** Tool calls asked about and not answered yet. */
  readonly pendingApprovals: number;
  /** The first 60 characters of the first Run's text input ("" without a Run). */
  readonly firstInput: string;
}

/** How many characters of the first input a row keeps. */
export const firstInputLength = 60;

/**
 * The row of one Session, from its catalog summary and its records. A last Run without a
 * `run-end` is `running` while a writer holds the Session, else `interrupted` (its process
 * ended mid-Run; opening the Session offers to resume it).
 */
export function sessionRow(summary: SessionSummary, records: readonly SessionRecord[]): SessionRow {
  let runs = 0;
  let lastRunId: string | undefined;
  let firstInput: string | undefined;
  const ended = new Map<string, LastRunStatus>();
  const asked = new Set<string>();
  const settled = new Set<string>();
  for (const record of records) {
    switch (record.kind) {
      case "run-start":
        runs++;
        lastRunId = record.runId;
        firstInput ??= record.input
          .map((block) => (block.type === "text" ? block.text : ""))
          .join(" ")
          .replace(/\s+/g, " ")
          .trim();
        break;
      case "run-end":
        ended.set(record.runId, record.status);
        break;
      case "approval-request":
        asked.add(`${record.runId}\0${record.toolCallId}`);
        break;
      case "approval-answer":
      case "tool-end":
        settled.add(`${record.runId}\0${record.toolCallId}`);
        break;
    }
  }
  const workspace = summary.params.workspace;
  const lastRunStatus =
    lastRunId === undefined ? null : (ended.get(lastRunId) ?? (summary.locked ? "running" : "interrupted"));
  return {
    sessionId: summary.sessionId,
    workspace: typeof workspace === "string" ? workspace : null,
    updatedAt: summary.updatedAt,
    runs,
    lastRunStatus,
    pendingApprovals: [...asked].filter((call) => !settled.has(call)).length,
    firstInput: [...(firstInput ?? "")].slice(0, firstInputLength).join("").trimEnd(),
  };
}
