export { createFileSessionStore, type FileSessionStoreOptions } from "./file-store.js";
export { createMemorySessionStore } from "./memory-store.js";
export {
  type AssistantMessageRecord,
  type RunEndRecord,
  type RunStartRecord,
  type SessionOpenRecord,
  type SessionRecord,
  sessionLogFormatVersion,
  sessionRecordKinds,
  type ToolEndRecord,
  type ToolStartRecord,
} from "./records.js";
export type { SessionLog, SessionStore } from "./types.js";
