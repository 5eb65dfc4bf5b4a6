// The castellan package's programmatic surface: what the bin runs, for embedding and tests.
export { type CliIo, exitCodes, runCli } from "./cli/run-cli.js";
export { castellanHome, sessionsDirectory } from "./home/castellan-home.js";
export { workspaceUrl } from "./home/workspace-url.js";
export { formatSessions } from "./sessions/format-sessions.js";
export { defaultSessionsLimit, type ListSessionsOptions, listSessions } from "./sessions/list-sessions.js";
export { firstInputLength, type LastRunStatus, type SessionRow, sessionRow } from "./sessions/session-row.js";
