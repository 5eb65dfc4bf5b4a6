import { type SessionRecord, sessionLogFormatVersion, sessionRecordKinds } from "./records.js";

// Minimal shape checks, shared by the file reader and by both stores' `append`. They check
// what a fold over the log relies on (the kind, ids, turn numbers, the presence of nested
// objects) and stop there: nested content is the Session's business, and checking it deeply
// here would make every reopen pay for it.

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTurn(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** The first required field of `fields` that is not a string, or undefined. */
function missingString(record: Fields, ...fields: readonly string[]): string | undefined {
  for (const field of fields) if (typeof record[field] !== "string") return `"${field}" is not a string`;
  return undefined;
}

function checkSessionOpen(record: Fields): string | undefined {
  const version = record.formatVersion;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    return '"formatVersion" is not a positive integer';
  }
  return (
    missingString(record, "sessionId", "agentId") ?? (isObject(record.params) ? undefined : '"params" is not an object')
  );
}

function checkInputId(record: Fields): string | undefined {
  const id = record.inputId;
  if (id === undefined) return undefined;
  return typeof id === "string" && id.length >= 1 && id.length <= 256
    ? undefined
    : '"inputId" is not a string of 1-256 characters';
}

function checkRunStart(record: Fields): string | undefined {
  return (
    missingString(record, "runId") ??
    (Array.isArray(record.input) ? undefined : '"input" is not an array') ??
    checkInputId(record)
  );
}

function checkAssistantMessage(record: Fields): string | undefined {
  const problem = missingString(record, "runId", "stopReason", "model");
  if (problem !== undefined) return problem;
  if (!isTurn(record.turn)) return '"turn" is not a non-negative integer';
  const message = record.message;
  if (!isObject(message) || !Array.isArray(message.content) || !Array.isArray(message.toolCalls)) {
    return '"message" is not an assistant message with "content" and "toolCalls" arrays';
  }
  for (const call of message.toolCalls) {
    if (!isObject(call) || typeof call.id !== "string" || typeof call.name !== "string") {
      return '"message.toolCalls" holds a call without string "id" and "name"';
    }
    if (call.malformedInput !== undefined && typeof call.malformedInput !== "string") {
      return '"malformedInput" of a tool call is not a string';
    }
  }
  if (record.usage !== undefined && !isObject(record.usage)) return '"usage" is not an object';
  return undefined;
}

function checkHostedToolActivity(record: Fields): string | undefined {
  const problem = checkTurnScoped(record) ?? missingString(record, "callId", "toolName", "hostedKind");
  if (problem !== undefined) return problem;
  if (typeof record.ok !== "boolean") return '"ok" is not a boolean';
  if (!Array.isArray(record.queries) || !record.queries.every((query) => typeof query === "string")) {
    return '"queries" is not an array of strings';
  }
  const sources = record.sources;
  if (
    !Array.isArray(sources) ||
    !sources.every(
      (source) =>
        isObject(source) &&
        typeof source.url === "string" &&
        (source.title === undefined || typeof source.title === "string"),
    )
  ) {
    return '"sources" is not a list of { url, title? }';
  }
  return record.errorCode === undefined || typeof record.errorCode === "string"
    ? undefined
    : '"errorCode" is not a string';
}

function checkToolStart(record: Fields): string | undefined {
  const problem = missingString(record, "runId");
  if (problem !== undefined) return problem;
  if (!isTurn(record.turn)) return '"turn" is not a non-negative integer';
  const call = record.toolCall;
  if (!isObject(call) || typeof call.id !== "string" || typeof call.name !== "string") {
    return '"toolCall" is not a tool call with string "id" and "name"';
  }
  return undefined;
}

function checkToolEnd(record: Fields): string | undefined {
  const problem = missingString(record, "runId", "toolCallId", "toolName");
  if (problem !== undefined) return problem;
  if (!isTurn(record.turn)) return '"turn" is not a non-negative integer';
  if (record.input === undefined) return '"input" is missing';
  const result = record.result;
  if (!isObject(result) || !Array.isArray(result.content) || typeof result.isError !== "boolean") {
    return '"result" is not a tool result with a "content" array and a boolean "isError"';
  }
  if (record.stateChanges !== undefined && !isObject(record.stateChanges)) return '"stateChanges" is not an object';
  const childUsage = record.childUsage;
  if (
    childUsage !== undefined &&
    !(
      Array.isArray(childUsage) &&
      childUsage.every(
        (entry) =>
          isObject(entry) &&
          typeof entry.agentId === "string" &&
          typeof entry.model === "string" &&
          isObject(entry.usage),
      )
    )
  ) {
    return '"childUsage" is not a list of { agentId, model, usage }';
  }
  return undefined;
}

const runEndStatuses: ReadonlySet<unknown> = new Set(["completed", "aborted", "failed", "interrupted"]);
const runStopReasons: ReadonlySet<unknown> = new Set(["end", "max-tokens", "refusal", "other"]);

function checkRunEnd(record: Fields): string | undefined {
  const problem = missingString(record, "runId");
  if (problem !== undefined) return problem;
  if (!runEndStatuses.has(record.status)) return '"status" is not "completed", "aborted", "failed" or "interrupted"';
  const error = record.error;
  if (
    error !== undefined &&
    (!isObject(error) || typeof error.code !== "string" || typeof error.message !== "string")
  ) {
    return '"error" is not an error with string "code" and "message"';
  }
  if (record.stopReason !== undefined && !runStopReasons.has(record.stopReason)) {
    return '"stopReason" is not "end", "max-tokens", "refusal" or "other"';
  }
  return undefined;
}

function checkChanges(value: unknown): string | undefined {
  return isObject(value) ? undefined : '"changes" is not an object';
}

function checkRunScoped(record: Fields): string | undefined {
  return missingString(record, "runId");
}

function checkTurnScoped(record: Fields): string | undefined {
  return missingString(record, "runId") ?? (isTurn(record.turn) ? undefined : '"turn" is not a non-negative integer');
}

function checkRunInput(record: Fields): string | undefined {
  return (
    checkRunScoped(record) ??
    (Array.isArray(record.input) ? undefined : '"input" is not an array') ??
    checkInputId(record)
  );
}

function checkToolBatchStart(record: Fields): string | undefined {
  return (
    checkTurnScoped(record) ??
    (Array.isArray(record.toolCallIds) && record.toolCallIds.every((id) => typeof id === "string")
      ? undefined
      : '"toolCallIds" is not an array of strings')
  );
}

function checkToolBatchEnd(record: Fields): string | undefined {
  const problem = checkTurnScoped(record);
  if (problem !== undefined) return problem;
  if (record.status !== "committed" && record.status !== "discarded")
    return '"status" is not "committed" or "discarded"';
  return record.changes === undefined ? undefined : checkChanges(record.changes);
}

function checkStateCommitted(record: Fields): string | undefined {
  if (record.source !== "host") return '"source" is not "host"';
  return checkTurnScoped(record) ?? checkChanges(record.changes);
}

function checkApprovalRequest(record: Fields): string | undefined {
  const problem = checkTurnScoped(record) ?? missingString(record, "toolCallId", "toolName");
  if (problem !== undefined) return problem;
  if (record.input === undefined) return '"input" is missing';
  return typeof record.readOnly === "boolean" ? undefined : '"readOnly" is not a boolean';
}

function checkApprovalAnswer(record: Fields): string | undefined {
  const problem = missingString(record, "runId", "toolCallId");
  if (problem !== undefined) return problem;
  return record.decision === "allow" || record.decision === "deny" ? undefined : '"decision" is not "allow" or "deny"';
}

function checkCompaction(record: Fields): string | undefined {
  const problem = missingString(record, "summary", "model");
  if (problem !== undefined) return problem;
  if (!isTurn(record.keptMessages)) return '"keptMessages" is not a non-negative integer';
  if (typeof record.tokensBefore !== "number") return '"tokensBefore" is not a number';
  return record.runId === undefined || typeof record.runId === "string" ? undefined : '"runId" is not a string';
}

/** What is wrong with a record of one kind, or undefined. */
type Check = (record: Fields) => string | undefined;

// One check per record kind: the mapped type makes the compiler fail when a kind has none.
const checks: { readonly [Kind in SessionRecord["kind"]]: Check } = {
  "run-input": checkRunInput,
  "run-resume": checkRunScoped,
  "tool-batch-start": checkToolBatchStart,
  "tool-batch-end": checkToolBatchEnd,
  "state-queued": (record) => checkChanges(record.changes),
  "state-committed": checkStateCommitted,
  "approval-request": checkApprovalRequest,
  "approval-answer": checkApprovalAnswer,
  compaction: checkCompaction,
  "session-open": checkSessionOpen,
  "run-start": checkRunStart,
  "assistant-message": checkAssistantMessage,
  "hosted-tool-activity": checkHostedToolActivity,
  "tool-start": checkToolStart,
  "tool-end": checkToolEnd,
  "run-end": checkRunEnd,
};

/**
 * Says what is wrong with a value that should be a session record (an unknown kind, or a
 * required field missing or of the wrong type), or returns undefined when it has the shape
 * of its kind. Nested content (message blocks, tool inputs) is not checked.
 */
export function describeInvalidRecord(value: unknown): string | undefined {
  if (!isObject(value)) return "the record is not an object";
  const kind = value.kind;
  if (typeof kind !== "string" || !sessionRecordKinds.has(kind)) {
    return `the record kind ${JSON.stringify(kind) ?? "undefined"} is unknown`;
  }
  const problem = checks[kind as SessionRecord["kind"]](value);
  return problem === undefined ? undefined : `the ${kind} record is malformed: ${problem}`;
}

/** Why a well-shaped record cannot stand at its place in a log, with the error code that says so. */
export interface PlacementProblem {
  readonly code: "session_log_corrupt" | "session_log_unsupported";
  readonly problem: string;
}

/**
 * Checks a record's place in its log: the first record (index 0) must be a `session-open`
 * whose `formatVersion` is at most {@link sessionLogFormatVersion}; no later record may be a
 * `session-open`. Returns undefined when the place is right.
 */
export function checkRecordPlacement(record: SessionRecord, index: number): PlacementProblem | undefined {
  if (index === 0) {
    if (record.kind !== "session-open") {
      return { code: "session_log_corrupt", problem: `the first record is ${record.kind}, not session-open` };
    }
    if (record.formatVersion > sessionLogFormatVersion) {
      return {
        code: "session_log_unsupported",
        problem: `the log has format version ${record.formatVersion}; this reader supports up to ${sessionLogFormatVersion}`,
      };
    }
    return undefined;
  }
  if (record.kind === "session-open") {
    return { code: "session_log_corrupt", problem: "a session-open record appears after the first record" };
  }
  return undefined;
}

/** The first record of an append that cannot be written, and why. */
export interface AppendProblem extends PlacementProblem {
  /** Its 0-based position in the whole log. */
  readonly index: number;
}

/**
 * Checks records about to be appended to a log that already has `countBefore` records: each
 * must have the shape of its kind and stand at a valid place. Writing them anyway would leave
 * a log that its next open refuses.
 */
export function checkAppend(records: readonly unknown[], countBefore: number): AppendProblem | undefined {
  for (let offset = 0; offset < records.length; offset++) {
    const index = countBefore + offset;
    const record = records[offset];
    const problem = describeInvalidRecord(record);
    if (problem !== undefined) return { code: "session_log_corrupt", problem, index };
    const placement = checkRecordPlacement(record as SessionRecord, index);
    if (placement !== undefined) return { ...placement, index };
  }
  return undefined;
}
