export {
  type EnvironmentPolicy,
  isNeverPassed,
  type ResolvedEnvironmentPolicy,
  resolveEnvironmentPolicy,
} from "../../platform/environment/environment-policy.js";
export { EnvironmentPolicyError } from "../../platform/environment/policy-error.js";
export {
  type BoundedOutput,
  CommandAbortedError,
  type CommandDelta,
  type CommandInfo,
  type CommandLifetime,
  CommandLimitError,
  CommandNotFoundError,
  type CommandObserverFailure,
  type CommandOutcome,
  type CommandOutput,
  type CommandOutputChunk,
  type CommandPreparedSpawn,
  type CommandPrepareRequest,
  type CommandResult,
  type CommandShell,
  CommandSpawnError,
  type CommandSpawnLayer,
  type CommandSpawnRequest,
  type CommandSupervisor,
  type CommandSupervisorLimits,
  type CommandSupervisorOptions,
  type CommandWaitOptions,
  type CommandWaitResult,
  createCommandSupervisor,
  type DetachedProcess,
  type SpawnDetachedOptions,
  setBackgroundPriority,
  spawnDetached,
  timeoutExitCode,
} from "../../platform/process/index.js";
export {
  checkCanonicalHost,
  checkSandboxDependencies,
  createSandboxRuntimeAdapter,
  findExecutable,
  isCanonicalHost,
  maxNetworkAccessHosts,
  maxNetworkAccessReasonLength,
  type RequestNetworkAccessAdmission,
  type RequestNetworkAccessInput,
  type RequestNetworkAccessResult,
  type ResolvedSandboxPolicy,
  SandboxConfigError,
  type SandboxDependencies,
  type SandboxFilesystemPolicy,
  type SandboxNetworkPolicy,
  type SandboxPolicyConfig,
  SandboxProfileConflictError,
  type SandboxRuntimeAdapter,
  type SandboxRuntimeAdapterOptions,
  SandboxUnavailableError,
  sandboxRuntimeVersion,
  suggestCanonicalHost,
} from "../../platform/sandbox/index.js";
export { checkRuntimeNotWritable } from "../../platform/sandbox/runtime-not-writable.js";
// The runtime the workspace capability builds its command tools on (and the containment its
// environment probe asks about): shared through this index, never by path.
export { type CommandContainment, commandContainmentOf } from "./host/command-containment.js";
export { runSessionCommand, type SessionCommandRequest, type SessionCommandResult } from "./host/index.js";
export {
  CommandOptionsError,
  type CommandRunRequest,
  type CommandRunResult,
  CommandRuntime,
  type CommandRuntimeLimits,
  type CommandRuntimeOptions,
  type CommandRuntimeSandbox,
  type CommandRuntimeSandboxOptions,
  createCommandRuntime,
} from "./runtime/index.js";
export {
  createSandboxRuntimeCommandSessionPlugin,
  type SandboxRuntimeCommandSessionOptions,
  type SandboxRuntimeCommandSessionPlugin,
  sandboxRuntimeCommandSessionPluginName,
} from "./sandbox/plugin.js";
export { createCommandSessionTool } from "./session/command-session-tool.js";
export { createExecCommandTool } from "./session/exec-command-tool.js";
export {
  CommandObserverError,
  type CommandReportStream,
  type CommandSessionAdmission,
  type CommandSessionInput,
  type CommandSessionLifetime,
  type CommandSessionOptions,
  type CommandSessionPlugin,
  type CommandSessionPorts,
  type CommandSessionReport,
  type CommandTerminalRequest,
  type CommandTerminalUpdate,
  commandSessionPluginName,
  createCommandSessionPlugin,
  type ExecCommandAdmission,
  type ExecCommandInput,
  maxCommandBytes,
  type SessionCommand,
  type SessionCommandsChange,
} from "./session/index.js";
export { appendContext } from "./session/observations.js";
export { commandSettingKeys, type ResolvedCommandSettings, resolveCommandSettings } from "./session/options.js";
export { readCommandReport } from "./session/read-report.js";
export { type CommandSessionLayer, CommandSessionRuntime } from "./session/runtime.js";
