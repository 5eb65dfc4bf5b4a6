/** Which tools a workspace gives, for the usage rules its section states. */
export interface WorkspaceToolSet {
  readonly edits: boolean;
  readonly commands: boolean;
  readonly sandboxed: boolean;
  readonly networkRequests: boolean;
  readonly publish: boolean;
}

/**
 * The `workspace` section: how to use the tools this workspace gives. Rules for tools it does
 * not give are left out.
 */
export function workspaceSectionText(tools: WorkspaceToolSet): string {
  const rules = [
    "Paths are relative to the workspace root, written with forward slashes (src/index.ts); never absolute, never with ..",
    "Find before you read: search_workspace for a name or text, then read_workspace_file from the hit's line, one page at a time, instead of reading whole files.",
    "list_workspace shows a directory; read_workspace_image shows an image file.",
  ];
  if (tools.edits) {
    rules.push(
      "Edit exactly: edit_workspace_file replaces one piece of text copied byte for byte from a fresh read; apply_workspace_patch changes several files at once.",
      "A patch file already committed to the repository is history, not a task: never apply it again.",
    );
  }
  if (tools.commands) {
    rules.push(
      "exec_command runs one shell command in the root (workdir for a subdirectory) and returns its report, or a running handle if it is still going.",
      "Poll or stop a running handle with command_session instead of backgrounding with &, nohup or setsid, and reuse a live handle instead of starting a service again.",
      'Start a service the next Runs need (a dev server, a watcher) with lifetime: "session"; ordinary commands end at their deadline.',
    );
  }
  if (tools.sandboxed) {
    rules.push(
      "Commands run in an OS sandbox: they may write only inside the workspace and the temporary directory, and reach only the allowed hosts.",
    );
  }
  if (tools.networkRequests) {
    rules.push(
      "When a command needs a host that is refused, ask for it with request_network_access (exact host names and why); do not retry the command until it is granted.",
    );
  }
  if (tools.publish) {
    rules.push(
      "When the work is done and checked, publish_workspace delivers it with your summary; it fails unless the delivery is verified.",
    );
  }
  return rules.map((rule) => `- ${rule}`).join("\n");
}
