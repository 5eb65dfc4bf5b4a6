export {
  defaultHomeReadPaths,
  deniedHomeEntries,
  type WorkspaceHomeReads,
  workspaceProtectedRootEntries,
} from "../../../platform/sandbox/workspace-policy.js";
export { WorkspaceOptionsError } from "./errors.js";
export type {
  WorkspaceCommandOptions,
  WorkspaceFilesOptions,
  WorkspaceGuidanceOptions,
  WorkspaceNetworkOptions,
  WorkspaceOptions,
  WorkspacePublication,
  WorkspacePublisher,
  WorkspacePublishRequest,
} from "./options.js";
export { createProtectedPlaceholders } from "./placeholders.js";
export { maxPublishSummaryLength, type PublishWorkspaceInput } from "./publish-tool.js";
export { type WorkspaceCapability, workspace, workspaceSandboxSpecifier } from "./workspace.js";
