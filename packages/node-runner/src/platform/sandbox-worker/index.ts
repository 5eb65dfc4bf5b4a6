// `@castellan/node-runner/sandbox-worker`: the per-owner sandbox worker, for Node and desktop
// hosts that integrate the OS sandbox themselves. Agents use `workspace()` instead.
export {
  createSandboxWorkerRuntimeAdapter,
  type SandboxWorkerOptions,
  type SandboxWorkerRuntimeAdapter,
} from "./adapter.js";
export { sandboxWorkerEntry } from "./entry.js";
export { SandboxWorkerMissingError, SandboxWorkerStoppedError } from "./errors.js";
