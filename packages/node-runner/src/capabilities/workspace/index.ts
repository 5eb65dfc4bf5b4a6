export type { WorkspaceRefusalCode } from "../../kernel/workspace-path/refusal.js";
export { nodeWorkspaceOperations, type WorkspaceOperations } from "../../platform/paths/operations.js";
export { WorkspaceRootError } from "../../platform/paths/root-error.js";
export * from "./capability/index.js";
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
export {
  createWorkspaceInstructionsPlugin,
  type WorkspaceInstructionsOptions,
  type WorkspaceInstructionsPlugin,
  type WorkspaceInstructionsReceipt,
} from "./instructions/instructions-plugin.js";
export {
  createWorkspaceReviewTool,
  type ReviewModel,
  type ReviewWorkspaceFilesInput,
  type WorkspaceReviewToolOptions,
} from "./review/review-workspace-files.js";
export type { SearchEngine, SearchHit, SearchWorkspaceInput, SearchWorkspacePage } from "./search/index.js";
export type { ApplyWorkspacePatchInput } from "./tools/apply-workspace-patch.js";
export {
  createRootBoundWorkspaceTools,
  type RootBoundWorkspaceToolsOptions,
} from "./tools/create-root-bound-workspace-tools.js";
export type { EditReceipt, EditWorkspaceFileInput } from "./tools/edit-workspace-file.js";
export { defaultWorkspaceLimits, type WorkspaceLimits } from "./tools/limits.js";
export type { ListedEntry, ListPage, ListWorkspaceInput } from "./tools/list-workspace.js";
export type { PatchReceipt } from "./tools/patch-commit.js";
export type { PatchAdmissionFile } from "./tools/patch-plan.js";
export type { ReadPage } from "./tools/read-page.js";
export { readWorkspaceReport, type WorkspaceToolReport } from "./tools/read-report.js";
export type { ReadWorkspaceFileInput } from "./tools/read-workspace-file.js";
export {
  createWorkspaceImageTool,
  type ReadWorkspaceImageInput,
  type WorkspaceImageToolOptions,
} from "./tools/read-workspace-image.js";
