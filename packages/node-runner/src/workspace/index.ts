export {
  createWorkspaceEnvironmentPlugin,
  type GitBranch,
  type GitEnvironment,
  type GitHead,
  type GitRepositoryFacts,
  type GitWorktree,
  probeWorkspaceEnvironment,
  type WorkspaceEnvironment,
  type WorkspaceEnvironmentOptions,
} from "./environment/index.js";
