import type {
  AssistantMessage,
  ContentBlock,
  ErrorInfo,
  JsonObject,
  JsonValue,
  RunStopReason,
  StopReason,
  ToolCall,
  ToolResult,
  Usage,
} from "@castellan/harness";

/** The version of the session log format this package writes. Readers keep accepting older ones. */
export const sessionLogFormatVersion = 1;

/** First record of every log: whose history it is and the Session's parameters. */
export interface SessionOpenRecord {
  readonly kind: "session-open";
  readonly formatVersion: number;
  readonly sessionId: string;
  readonly agentId: string;
  readonly params: JsonObject;
}

/** A Run was admitted with this input. */
export interface RunStartRecord {
  readonly kind: "run-start";
  readonly runId: string;
  readonly input: readonly ContentBlock[];
  /** The host's identity for the input, unique in the Session. */
  readonly inputId?: string;
}

/** The model's complete answer in one turn, with its opaque provider blocks. */
export interface AssistantMessageRecord {
  readonly kind: "assistant-message";
  readonly runId: string;
  readonly turn: number;
  readonly message: AssistantMessage;
  readonly stopReason: StopReason;
  /** The specifier of the model that answered. */
  readonly model: string;
  readonly usage?: Usage;
}

/**
 * A provider-hosted tool call (e.g. a web search) that ran inside the model call of the
 * `assistant-message` it is saved with, in the same append: its queries and sources, bounded
 * (8 queries, 50 sources, titles of 300 characters), never page content.
 */
export interface HostedToolActivityRecord {
  readonly kind: "hosted-tool-activity";
  readonly runId: string;
  readonly turn: number;
  readonly callId: string;
  /** The hosted tool's name in the agent, e.g. `web_search`. */
  readonly toolName: string;
  /** Its hosted kind, e.g. `web-search`. */
  readonly hostedKind: string;
  readonly ok: boolean;
  readonly queries: readonly string[];
  readonly sources: readonly { readonly url: string; readonly title?: string }[];
  readonly errorCode?: string;
}

/** A tool call is about to execute (its intent); written before the tool runs. */
export interface ToolStartRecord {
  readonly kind: "tool-start";
  readonly runId: string;
  readonly turn: number;
  readonly toolCall: ToolCall;
}

/** A tool call settled (its receipt); a denied or invalid call has a receipt and no start. */
export interface ToolEndRecord {
  readonly kind: "tool-end";
  readonly runId: string;
  readonly turn: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonValue;
  readonly result: ToolResult;
  /**
   * The state this call wrote, still tentative: it commits with its batch. Kept so that a
   * batch resumed after a crash commits the writes of the calls that settled before it.
   */
  readonly stateChanges?: Readonly<Record<string, JsonValue>>;
  /** For a child-agent call: the usage of the child's model calls, attributed to the child's agent. */
  readonly childUsage?: readonly ChildUsage[];
}

/** One model call of a child agent, as its delegating call's receipt keeps it. */
export interface ChildUsage {
  readonly agentId: string;
  readonly model: string;
  readonly usage: Usage;
}

/**
 * A Run settled. `interrupted` is written for a Run whose process stopped before it settled,
 * when a later Run starts instead of resuming it.
 */
export interface RunEndRecord {
  readonly kind: "run-end";
  readonly runId: string;
  readonly status: "completed" | "aborted" | "failed" | "interrupted";
  readonly error?: ErrorInfo;
  /** How a completed Run's final answer ended (absent in logs written before it was kept). */
  readonly stopReason?: RunStopReason;
}

/** Input joined into a running Run (`run.join`), saved when the Run takes it. */
export interface RunInputRecord {
  readonly kind: "run-input";
  readonly runId: string;
  readonly input: readonly ContentBlock[];
  /** The host's identity for the input, unique in the Session. */
  readonly inputId?: string;
}

/** An interrupted Run was explicitly resumed under the same id. */
export interface RunResumeRecord {
  readonly kind: "run-resume";
  readonly runId: string;
}

/** A tool batch (the calls of one model turn) began; its state writes are tentative until its end. */
export interface ToolBatchStartRecord {
  readonly kind: "tool-batch-start";
  readonly runId: string;
  readonly turn: number;
  readonly toolCallIds: readonly string[];
}

/** A tool batch settled: its state writes are committed (in this same record) or discarded. */
export interface ToolBatchEndRecord {
  readonly kind: "tool-batch-end";
  readonly runId: string;
  readonly turn: number;
  readonly status: "committed" | "discarded";
  /** The committed state changes; absent when discarded or when nothing was written. */
  readonly changes?: Readonly<Record<string, JsonValue>>;
  /** Why the writes were discarded. */
  readonly reason?: string;
}

/** A host state write, queued for the next turn (`session.setState`). */
export interface StateQueuedRecord {
  readonly kind: "state-queued";
  readonly changes: Readonly<Record<string, JsonValue>>;
}

/** The queued host writes were applied at the start of a turn. */
export interface StateCommittedRecord {
  readonly kind: "state-committed";
  readonly source: "host";
  readonly runId: string;
  readonly turn: number;
  readonly changes: Readonly<Record<string, JsonValue>>;
}

/** A tool call is waiting for approval; written before the approval adapter is asked. */
export interface ApprovalRequestRecord {
  readonly kind: "approval-request";
  readonly runId: string;
  readonly turn: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonValue;
  readonly readOnly: boolean;
  readonly reason?: string;
  /** The tool's admission, when it has `admit`: a reopened approval shows what was asked. */
  readonly admission?: JsonValue;
}

/** An approval request was answered (live, or later through `session.answerApproval`). */
export interface ApprovalAnswerRecord {
  readonly kind: "approval-answer";
  readonly runId: string;
  readonly toolCallId: string;
  readonly decision: "allow" | "deny";
  readonly reason?: string;
}

/**
 * A compaction checkpoint: the conversation before the last `keptMessages` messages is
 * replaced, in what the model is sent, by `summary`. The records themselves stay.
 */
export interface CompactionRecord {
  readonly kind: "compaction";
  readonly runId?: string;
  readonly summary: string;
  readonly keptMessages: number;
  /** The estimated size of the conversation before compaction, in tokens. */
  readonly tokensBefore: number;
  readonly model: string;
  readonly usage?: Usage;
}

/** One fact of a Session's history. The `kind` names are the Run event vocabulary (docs/events.md). */
export type SessionRecord =
  | SessionOpenRecord
  | RunStartRecord
  | AssistantMessageRecord
  | HostedToolActivityRecord
  | ToolStartRecord
  | ToolEndRecord
  | RunEndRecord
  | RunInputRecord
  | RunResumeRecord
  | ToolBatchStartRecord
  | ToolBatchEndRecord
  | StateQueuedRecord
  | StateCommittedRecord
  | ApprovalRequestRecord
  | ApprovalAnswerRecord
  | CompactionRecord;

// Every kind once: the mapped type makes the compiler fail when a kind of the union is missing.
const kinds: { readonly [Kind in SessionRecord["kind"]]: true } = {
  "session-open": true,
  "run-start": true,
  "assistant-message": true,
  "hosted-tool-activity": true,
  "tool-start": true,
  "tool-end": true,
  "run-end": true,
  "run-input": true,
  "run-resume": true,
  "tool-batch-start": true,
  "tool-batch-end": true,
  "state-queued": true,
  "state-committed": true,
  "approval-request": true,
  "approval-answer": true,
  compaction: true,
};

/** The kinds a reader of this version accepts: exactly the kinds of `SessionRecord`. */
export const sessionRecordKinds: ReadonlySet<string> = new Set(Object.keys(kinds));
