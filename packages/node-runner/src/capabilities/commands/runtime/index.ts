export {
  CommandRuntime,
  type CommandRuntimeParts,
  type CommandRuntimeSandbox,
  type ResolvedCommandRuntimeLimits,
} from "./command-runtime.js";
export { createCommandRuntime } from "./create.js";
export { CommandOptionsError } from "./errors.js";
export type { CommandRuntimeLimits, CommandRuntimeOptions, CommandRuntimeSandboxOptions } from "./options.js";
export { type CommandRunRequest, type CommandRunResult, runRequestProblem } from "./request.js";
