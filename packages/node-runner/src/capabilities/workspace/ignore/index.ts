// Git's ignore rules for walks of a workspace root (search, recursive listing): .gitignore
// files loaded as the walk enters each directory, the root's .git/info/exclude, and .git
// always skipped. Every file is read through the root's WorkspaceOperations without
// following links.

export {
  enterIgnoreDirectory,
  gitDirectoryName,
  type IgnoreOptions,
  type IgnoreScope,
  ignoreScopeFor,
  isCastellanState,
  isIgnored,
  rootIgnoreScope,
  rulesFileName,
} from "./ignore-scope.js";
export { defaultMaxRulesFileBytes, readRulesFile } from "./read-rules-file.js";
