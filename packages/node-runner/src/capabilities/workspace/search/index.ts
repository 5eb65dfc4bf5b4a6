// The engine behind search_workspace: one call returns one byte-bounded page of matching
// lines, and its nextOffset continues the walk where it stopped.
export { searchWorkspace } from "./search.js";
export {
  maxQueryBytes,
  type SearchEngine,
  type SearchHit,
  type SearchWorkspaceInput,
  type SearchWorkspaceOptions,
  type SearchWorkspacePage,
} from "./types.js";
