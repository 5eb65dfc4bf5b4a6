export { type Agent, type AgentDefinition, defineAgent, type StateOf } from "./agent.js";
export { type Capability, type CapabilityDefinition, defineCapability } from "./capability.js";
export type {
  ChildAgentOutcome,
  ChildAgentStatus,
  RunAgent,
  RunAgentOptions,
  ToolDelegation,
} from "./child-run.js";
export {
  type ContentBlock,
  type ImageBlock,
  isContentBlock,
  type ProviderBlock,
  type TextBlock,
  text,
  textOf,
} from "./content.js";
export type {
  AgentIdentity,
  HostedToolCall,
  StateShape,
  StateUpdate,
  StateView,
  ToolContext,
  ToolReceipt,
  ToolResult,
  TurnContext,
  TypedStateView,
} from "./context.js";
export { type AgentState, defineState } from "./define-state.js";
export type { Enabled } from "./enabled.js";
export { type CastellanErrorCode, castellanErrorCodes } from "./error-codes.js";
export { CastellanError, DeclarationError, isCastellanError, ResourcePendingError } from "./errors.js";
export {
  type ErrorInfo,
  type PermissionSource,
  type RunEvent,
  type RunEventKind,
  type RunResult,
  type RunStopReason,
  runStopReason,
} from "./events.js";
export type { CapabilitySection, Instructions, Placement, Section } from "./instructions.js";
export {
  deepFreeze,
  findNonJson,
  frozenJsonCopy,
  isJsonValue,
  type JsonObject,
  type JsonValue,
  jsonEqual,
} from "./json.js";
export type {
  BeforeModelHook,
  CapabilityHooks,
  CapabilityScope,
  SessionEndHook,
  SessionEndInfo,
  SessionStartHook,
  SessionStartInfo,
  TurnInfo,
  TurnStartHook,
} from "./lifecycle.js";
export {
  type AssistantMessage,
  type Message,
  malformedToolCall,
  type ToolCall,
  type ToolResultMessage,
  type UserMessage,
} from "./messages.js";
export {
  type HostedToolSource,
  type HostedToolSpec,
  type HostedToolStreamEvent,
  isModelRuntime,
  type ModelBinding,
  type ModelCallOptions,
  type ModelRequest,
  type ModelRuntime,
  type ModelStreamEvent,
  type StopReason,
  type ToolSpec,
  type Usage,
} from "./model.js";
export {
  isModelProviderError,
  type ModelErrorCode,
  ModelProviderError,
  type ModelProviderErrorOptions,
} from "./model-errors.js";
export {
  buildProgram,
  type DeclarationSource,
  isEnabled,
  type Program,
  type ProgramOptions,
  type ProgramResource,
  type ProgramSection,
  type ProgramTool,
} from "./program.js";
export {
  type ProjectedSection,
  type Projection,
  ProjectionError,
  type ProjectionOptions,
  projectTurn,
  renderSection,
} from "./projection.js";
export { createRedactor, REDACTED, type Redactor, scrubInspected } from "./redaction.js";
export { isReservedStateKey, reservedStateField, reservedStatePrefix } from "./reserved-state.js";
export {
  type AcquireOptions,
  type BindingHandle,
  type BindingKind,
  type BindingLease,
  type ResourceRequest,
  type ResourceSpec,
  resolveResourceSpec,
  resource,
} from "./resource.js";
export type { SandboxContribution, SandboxDeclaration, SandboxLease, SandboxOpenOptions } from "./sandbox.js";
export { assertSkillBinding, type SkillBinding, type SkillDeclaration, skillNamePattern } from "./skill.js";
export { cutUtf8, cutUtf8Tail, errorMessage } from "./text.js";
export {
  defineTool,
  describeToolCall,
  type HostToolReference,
  hostTool,
  isToolDeclaration,
  type SchemaTypedDefinition,
  type Tool,
  type ToolAdmission,
  type ToolAdmitContext,
  type ToolCallDescription,
  type ToolDeclaration,
  type ToolDefinition,
  type ToolOutput,
} from "./tool.js";
export { isToolInputError, ToolInputError } from "./tool-input-error.js";
export type {
  ParentToolCall,
  ToolPermissionContext,
  ToolPermissionContribution,
  ToolPermissionDecision,
  ToolPermissionRequest,
} from "./tool-permission.js";
export { isStandardSchema, type ToolInputStandardSchema } from "./tool-schema.js";
