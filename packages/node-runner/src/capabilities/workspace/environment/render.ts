import type { GitBranch, GitHead, GitWorktree, WorkspaceEnvironment } from "./types.js";

/** The heading of the block {@link renderWorkspaceEnvironment} writes. */
export const environmentHeading = "## Environment";

/**
 * The facts as a short headed block of context, one fact a line, `unknown` for each the probe
 * could not get. Branch names are in backticks (a branch may be called `unknown`); a path
 * or branch holding a control character or line separator is written quoted with escapes, so it
 * cannot start a line of its own.
 */
export function renderWorkspaceEnvironment(environment: WorkspaceEnvironment): string {
  const lines = [
    environmentHeading,
    "Observed before this Run's first model request; commands run since may have changed it.",
    `- Working directory: ${shown(environment.workingDirectory)}`,
  ];
  const { git } = environment;
  if (git.kind === "none") {
    lines.push("- Git repository: none (no .git in the working directory or any parent)");
  } else if (git.kind === "unknown") {
    lines.push("- Git repository: unknown");
  } else {
    lines.push(
      `- Repository root: ${git.root === undefined ? "unknown" : shown(git.root)}`,
      `- Worktree: ${worktreeText(git.worktree)}`,
      `- Branch: ${branchText(git.branch)}`,
      `- HEAD: ${headText(git.head)}`,
      `- Dirty: ${git.dirty === undefined ? "unknown" : git.dirty ? "yes (git status --porcelain lists changes)" : "no"}`,
    );
  }
  return lines.join("\n");
}

/** `context` with `block` after it, a blank line between; just `block` when there is no context. */
export function appendContext(context: string, block: string): string {
  return context === "" ? block : `${context.replace(/\n+$/u, "")}\n\n${block}`;
}

function worktreeText(worktree: GitWorktree | undefined): string {
  if (worktree === undefined) return "unknown";
  if (worktree.kind === "main") return "main";
  return `linked (main worktree: ${worktree.mainWorktree === undefined ? "unknown" : shown(worktree.mainWorktree)})`;
}

function branchText(branch: GitBranch | undefined): string {
  if (branch === undefined) return "unknown";
  if (branch.kind === "detached") return "none (detached HEAD)";
  return hasLineBreaking(branch.name) ? quoted(branch.name) : `\`${branch.name}\``;
}

function headText(head: GitHead | undefined): string {
  if (head === undefined) return "unknown";
  return head.kind === "unborn" ? "none (unborn branch: no commits yet)" : head.sha;
}

// C0 controls, DEL, C1 controls (NEL among them) and the Unicode line and paragraph
// separators: a newline in a directory or branch name must not forge a line of its own.
function isLineBreaking(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

function hasLineBreaking(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (isLineBreaking(text.charCodeAt(index))) return true;
  return false;
}

function shown(path: string): string {
  return hasLineBreaking(path) ? quoted(path) : path;
}

/** Double-quoted, each such character a `\uXXXX` escape (JSON.stringify keeps C1 and U+2028 raw). */
function quoted(text: string): string {
  let escaped = "";
  for (const character of text) {
    const code = character.charCodeAt(0);
    if (character === '"' || character === "\\") escaped += `\\${character}`;
    else if (isLineBreaking(code)) escaped += `\\u${code.toString(16).padStart(4, "0")}`;
    else escaped += character;
  }
  return `"${escaped}"`;
}
