// The one module for git over a checkout an agent can write: sandboxed for every step that
// changes or publishes it, and the environment probe's read-only plumbing, in a sandboxed
// Session's sandbox (sandboxed-probe-git.ts) or, for a Session without one, on the host
// (host-git.ts).

export { type GitInvocation, type GitOutcome, runGit } from "./host-git.js";
export {
  findProgramConfig,
  isProgramConfigKey,
  programConfigPatterns,
  type RefusedGitConfig,
} from "./program-config.js";
export { canaryFilterDriver, filterDriverNames } from "./safety.js";
export {
  neutralizeFiltersPrelude,
  runSandboxedGit,
  runSandboxedShell,
  type SandboxedGitOutcome,
  type SandboxedGitRequest,
  type SandboxedGitTarget,
  sandboxedGitArguments,
  sandboxedGitCommandLine,
  sandboxedGitEnvironment,
  shellArgument,
} from "./sandboxed-git.js";
export { runSandboxedProbeGit } from "./sandboxed-probe-git.js";
