// The castellan package's programmatic surface: what the bin runs, for embedding and tests.
export {
  type CliAgentOptions,
  chromiumPath,
  cliAgent,
  cliAgentId,
  cliInstructions,
  cliModel,
} from "./agent/cli-agent.js";
export { type CliParams, newCliParams, readCliParams, type SandboxMode } from "./agent/cli-params.js";
export { newSessionId } from "./agent/session-id.js";
export { type CommandLine, maxApprovalWaitMs, parseCommandLine, UsageError } from "./cli/parse-command-line.js";
export { runCli } from "./cli/run-cli.js";
export type { DoctorCheck, DoctorStatus } from "./doctor/doctor-check.js";
export { chromiumCheck, minimumNode, nodeCheck, programChecks } from "./doctor/program-checks.js";
export { anyProviderSet, providerChecks } from "./doctor/provider-checks.js";
export { doctorChecks, formatDoctor, runDoctor } from "./doctor/run-doctor.js";
export { sandboxProbe, sandboxProbeTimeoutMs } from "./doctor/sandbox-probe.js";
export {
  type ApprovalRelay,
  type HeadlessApprovalOptions,
  headlessApproval,
  noApproverReason,
} from "./headless/headless-approval.js";
export { type HeadlessRequest, runHeadless } from "./headless/run-headless.js";
export { castellanHome, sessionsDirectory } from "./home/castellan-home.js";
export { liveDirectory, maxSocketPathBytes, tasksDirectory } from "./home/live-directory.js";
export { workspaceUrl } from "./home/workspace-url.js";
export { chooseProvider, type ProviderChoice } from "./models/choose-provider.js";
export { providerBinding } from "./models/provider-binding.js";
export { keyVariables, type ProviderEntry, type ProviderName, providerTable } from "./models/provider-table.js";
export { CliError } from "./process/cli-error.js";
export type { CliIo } from "./process/cli-io.js";
export { exitCodes } from "./process/exit-codes.js";
export type { AgentFlags } from "./session/agent-flags.js";
export { findSavedSession, type SavedSessionQuery } from "./session/find-session.js";
export { type CliSession, type OpenCliSessionOptions, openCliSession } from "./session/open-cli-session.js";
export { formatSessions } from "./sessions/format-sessions.js";
export { defaultSessionsLimit, type ListSessionsOptions, listSessions } from "./sessions/list-sessions.js";
export { firstInputLength, type LastRunStatus, type SessionRow, sessionRow } from "./sessions/session-row.js";
export { sandboxInstallLine, sandboxPackages } from "./system/sandbox-packages.js";
