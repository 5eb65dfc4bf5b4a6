import type {
  AssistantMessage,
  ContentBlock,
  ErrorInfo,
  JsonObject,
  JsonValue,
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
}

/** A Run settled. */
export interface RunEndRecord {
  readonly kind: "run-end";
  readonly runId: string;
  readonly status: "completed" | "aborted" | "failed";
  readonly error?: ErrorInfo;
}

/** One fact of a Session's history. The `kind` names are the Run event vocabulary (docs/events.md). */
export type SessionRecord =
  | SessionOpenRecord
  | RunStartRecord
  | AssistantMessageRecord
  | ToolStartRecord
  | ToolEndRecord
  | RunEndRecord;

/** The kinds a reader of this version accepts. */
export const sessionRecordKinds: ReadonlySet<string> = new Set([
  "session-open",
  "run-start",
  "assistant-message",
  "tool-start",
  "tool-end",
  "run-end",
]);
