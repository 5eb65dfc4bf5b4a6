export {
  defaultGitTimeoutMs,
  maxGitTimeoutMs,
  type WorkspaceEnvironmentOptions,
} from "./options.js";
export { createWorkspaceEnvironmentPlugin, workspaceEnvironmentPluginName } from "./plugin.js";
export { probeWorkspaceEnvironment } from "./probe-workspace-environment.js";
export { environmentHeading, renderWorkspaceEnvironment } from "./render.js";
export type {
  GitBranch,
  GitEnvironment,
  GitHead,
  GitRepositoryFacts,
  GitWorktree,
  WorkspaceEnvironment,
} from "./types.js";
