// The OS-sandboxed command tools: exec_command and command_session over the same runtime as the
// unsandboxed plugin, with each command wrapped by @anthropic-ai/sandbox-runtime just before spawn.
export type {
  ResolvedSandboxPolicy,
  SandboxFilesystemPolicy,
  SandboxNetworkPolicy,
  SandboxPolicyConfig,
} from "./config.js";
export { SandboxConfigError, SandboxProfileConflictError, SandboxUnavailableError } from "./errors.js";
export {
  checkCanonicalHost,
  isCanonicalHost,
  maxNetworkAccessHosts,
  maxNetworkAccessReasonLength,
  type RequestNetworkAccessAdmission,
  type RequestNetworkAccessInput,
  type RequestNetworkAccessResult,
  suggestCanonicalHost,
} from "./network-access.js";
export { checkSandboxDependencies, findExecutable, type SandboxDependencies } from "./preflight.js";
export {
  createSandboxRuntimeAdapter,
  type SandboxRuntimeAdapter,
  type SandboxRuntimeAdapterOptions,
  sandboxRuntimeVersion,
} from "./runtime-adapter.js";
