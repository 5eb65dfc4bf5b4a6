// The process half of command sessions: spawn a final argv/env in its own process group,
// bound its output, enforce its deadline, and stop or clean up whole groups per owner.
export { setBackgroundPriority } from "./background-priority.js";
export { CommandAbortedError, CommandLimitError, CommandNotFoundError, CommandSpawnError } from "./errors.js";
export type { CommandSupervisorLimits, CommandSupervisorOptions } from "./options.js";
export type { BoundedOutput } from "./output-capture.js";
export { type DetachedProcess, type SpawnDetachedOptions, spawnDetached } from "./spawn-detached.js";
export { type CommandSupervisor, createCommandSupervisor } from "./supervisor.js";
export {
  type CommandDelta,
  type CommandInfo,
  type CommandLifetime,
  type CommandObserverFailure,
  type CommandOutcome,
  type CommandOutput,
  type CommandOutputChunk,
  type CommandPreparedSpawn,
  type CommandPrepareRequest,
  type CommandResult,
  type CommandShell,
  type CommandSpawnLayer,
  type CommandSpawnRequest,
  type CommandWaitOptions,
  type CommandWaitResult,
  timeoutExitCode,
} from "./types.js";
