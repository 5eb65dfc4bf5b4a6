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
export * from "./capabilities/browser/index.js";
export * from "./capabilities/children/index.js";
export * from "./capabilities/commands/index.js";
export * from "./capabilities/goals/index.js";
export {
  InstructionsFileError,
  type InstructionsFileErrorCode,
  type InstructionsFileOptions,
  instructionsFile,
} from "./capabilities/instructions-file/instructions-file.js";
export * from "./capabilities/mcp/index.js";
export * from "./capabilities/skills/index.js";
export * from "./capabilities/tasks/index.js";
export * from "./capabilities/untrusted-git/index.js";
export * from "./capabilities/workspace/index.js";
export {
  escapeForTerminal,
  TerminalApprovalError,
  type TerminalApprovalOptions,
  type TerminalApprovalPlugin,
  terminalApproval,
} from "./kernel/approval/terminal-approval.js";
export type { HarnessContextBudget, RunLimits } from "./kernel/context/session-context.js";
export { BudgetExceededError, type UsageBudget } from "./kernel/context/usage-budget.js";
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
} from "./kernel/errors/errors.js";
export { makePrivateDirectory, writePrivateFileAtomically } from "./kernel/files/private-files.js";
export { foldSessionUsage } from "./kernel/history/fold-usage.js";
export { unrecordedOutcome } from "./kernel/history/session-history.js";
export type { StateWrite } from "./kernel/history/state-fold.js";
export type { UsageEntry, UsageReport, UsageTotals } from "./kernel/history/usage-ledger.js";
export { type PermissionOutcome, presetDecision } from "./kernel/permissions/decide.js";
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
} from "./kernel/permissions/types.js";
export type {
  BeforeModelHook,
  ModelResolutionRequest,
  ModelResolver,
  NodeRunnerHooks,
  SandboxResolver,
  SessionEndHook,
  SessionEndInfo,
  SessionStartHook,
  SessionStartInfo,
  SkillResolver,
  StateChange,
  StateChangedHook,
  TurnInfo,
  TurnStartHook,
} from "./kernel/plugins/types.js";
export type { BuiltinPromptOverrides } from "./kernel/prompts/builtin-prompts.js";
export { StateError, StateKeyReservedError } from "./kernel/run/batch-state.js";
export { BeforeModelHookError } from "./kernel/run/before-model.js";
export { CompactionError, type CompactionOutcome } from "./kernel/run/compaction.js";
export { MaxTurnsError } from "./kernel/run/execute-run.js";
export type { JoinOptions, Run } from "./kernel/run/run.js";
export {
  type CreateSessionOptions,
  createNodeRunner,
  type NodeRunner,
  type NodeRunnerOptions,
} from "./kernel/runner/create-node-runner.js";
export { type OpenSessionOptions, openSession } from "./kernel/runner/open-session.js";
export type { NodeRunnerHost, NodeRunnerPlugin, SessionLookup } from "./kernel/runner/plugin.js";
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
} from "./kernel/session/inspection.js";
export type { InterruptedRun, PendingApproval, UnsettledCall } from "./kernel/session/interruption.js";
export type { RunInput, RunOptions, Session } from "./kernel/session/session.js";
export * from "./kernel/store/index.js";
export { type SettledToolCall, ToolReportError } from "./kernel/tools/tool-report.js";
export { SandboxWorkerMissingError, SandboxWorkerStoppedError } from "./platform/sandbox-worker/errors.js";
