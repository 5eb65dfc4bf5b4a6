export { isSessionCatalog, type SessionCatalog, type SessionSummary } from "./catalog.js";
export { catalogMaxFirstLineBytes, catalogTailBytes } from "./file-catalog.js";
export { createFileSessionStore, type FileSessionStoreOptions } from "./file-store.js";
export { createMemorySessionStore } from "./memory-store.js";
export {
  type ApprovalAnswerRecord,
  type ApprovalRequestRecord,
  type AssistantMessageRecord,
  type CompactionRecord,
  type HostedToolActivityRecord,
  type RunEndRecord,
  type RunInputRecord,
  type RunResumeRecord,
  type RunStartRecord,
  type SessionOpenRecord,
  type SessionRecord,
  type StateCommittedRecord,
  type StateQueuedRecord,
  sessionLogFormatVersion,
  sessionRecordKinds,
  type ToolBatchEndRecord,
  type ToolBatchStartRecord,
  type ToolEndRecord,
  type ToolStartRecord,
} from "./records.js";
export type { AppendOptions, SessionLog, SessionStore } from "./types.js";
