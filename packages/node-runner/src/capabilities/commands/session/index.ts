// The unsandboxed command tools exec_command and command_session, over the process supervisor.
export type { CommandSessionAdmission, CommandSessionInput } from "./command-session-tool.js";
export { CommandObserverError } from "./errors.js";
export { type ExecCommandAdmission, type ExecCommandInput, maxCommandBytes } from "./exec-command-tool.js";
export type { CommandSessionOptions } from "./options.js";
export { type CommandSessionPlugin, commandSessionPluginName, createCommandSessionPlugin } from "./plugin.js";
export type {
  CommandSessionLifetime,
  CommandSessionPorts,
  CommandTerminalRequest,
  CommandTerminalUpdate,
  SessionCommand,
  SessionCommandsChange,
} from "./ports.js";
export type { CommandReportStream, CommandSessionReport } from "./report.js";
