export type {
  AcquireOptions,
  BindingHandle,
  BindingKind,
  BindingLease,
  HostedToolSpec,
  ResourceRequest,
  SandboxContribution,
  SandboxLease,
  SandboxOpenOptions,
} from "@castellan/harness";
export * from "./browser/index.js";
export {
  InstructionsFileError,
  type InstructionsFileErrorCode,
  type InstructionsFileOptions,
  instructionsFile,
} from "./capabilities/instructions-file.js";
export * from "./children/index.js";
export * from "./commands/index.js";
export {
  AbortedError,
  InputDuplicateError,
  InvalidOptionsError,
  ModelCallError,
  ModelResolutionError,
  ParamsError,
  PluginError,
  ResourceError,
  RunAbortedError,
  SessionHookError,
  SessionLockedError,
  SessionLogError,
  SessionMismatchError,
  SessionStateError,
  ToolBindingError,
  ToolExecutionHostError,
} from "./errors.js";
export * from "./goals/index.js";
export { unrecordedOutcome } from "./history/session-history.js";
export type { StateWrite } from "./history/state-fold.js";
export type { UsageEntry, UsageReport, UsageTotals } from "./history/usage-ledger.js";
export * from "./mcp/index.js";
export { type PermissionOutcome, presetDecision } from "./permissions/decide.js";
export {
  TerminalApprovalError,
  type TerminalApprovalOptions,
  type TerminalApprovalPlugin,
  terminalApproval,
} from "./permissions/terminal-approval.js";
export type {
  ParentToolCall,
  PermissionPreset,
  ToolApprovalAdapter,
  ToolApprovalAnswer,
  ToolApprovalRequest,
  ToolPermissionContribution,
  ToolPermissionDecision,
  ToolPermissionHook,
  ToolPermissionRequest,
} from "./permissions/types.js";
export type {
  BeforeModelHook,
  ModelResolutionRequest,
  ModelResolver,
  NodeRunnerHooks,
  NodeRunnerHost,
  NodeRunnerPlugin,
  SandboxResolver,
  SessionEndHook,
  SessionEndInfo,
  SessionLookup,
  SessionStartHook,
  SessionStartInfo,
  SkillResolver,
  StateChange,
  StateChangedHook,
  TurnInfo,
  TurnStartHook,
} from "./plugins/types.js";
export type { BuiltinPromptOverrides } from "./prompts/builtin-prompts.js";
export { StateError, StateKeyReservedError } from "./run/batch-state.js";
export { BeforeModelHookError } from "./run/before-model.js";
export { CompactionError, type CompactionOutcome } from "./run/compaction.js";
export { MaxTurnsError } from "./run/execute-run.js";
export type { JoinOptions, Run } from "./run/run.js";
export { BudgetExceededError, type UsageBudget } from "./run/usage-budget.js";
export {
  type CreateSessionOptions,
  createNodeRunner,
  type NodeRunner,
  type NodeRunnerOptions,
} from "./runner/create-node-runner.js";
export { SandboxWorkerMissingError, SandboxWorkerStoppedError } from "./sandbox-worker/errors.js";
export type {
  InspectedCompaction,
  InspectedDeclaration,
  InspectedProjection,
  InspectedSection,
  InspectedSkill,
  InspectedTool,
  InspectedTurn,
  ProjectionChanges,
  SectionPlacement,
  SessionInspection,
} from "./session/inspection.js";
export type { InterruptedRun, PendingApproval, UnsettledCall } from "./session/interruption.js";
export { type OpenSessionOptions, openSession } from "./session/open-session.js";
export type { RunInput, RunOptions, Session } from "./session/session.js";
export type { HarnessContextBudget, RunLimits } from "./session/session-context.js";
export * from "./skills/index.js";
export * from "./store/index.js";
export * from "./tasks/index.js";
export * from "./untrusted-git/index.js";
export * from "./workspace/index.js";
