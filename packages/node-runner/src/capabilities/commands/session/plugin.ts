import type { NodeRunnerHost, NodeRunnerPlugin } from "../../../kernel/runner/plugin.js";
import { createCommandSessionTool } from "./command-session-tool.js";
import { createExecCommandTool } from "./exec-command-tool.js";
import { appendContext } from "./observations.js";
import { type CommandSessionOptions, resolveCommandSessionOptions } from "./options.js";
import type { SessionCommand } from "./ports.js";
import { CommandSessionRuntime } from "./runtime.js";

/** The name of the plugin {@link createCommandSessionPlugin} returns. */
export const commandSessionPluginName = "castellan.command-session";

/** The plugin, with the host's view of each Session's session-lifetime commands. */
export interface CommandSessionPlugin extends NodeRunnerPlugin {
  readonly name: typeof commandSessionPluginName;
  /** The Session's live `lifetime: "session"` commands, oldest first, with their bounded output since launch; reading consumes nothing. */
  sessionCommands(sessionId: string): readonly SessionCommand[];
  /**
   * Stops a live command of the Session exactly like `command_session` `stop`, and resolves
   * once its end was published through `onTerminalUpdate` (an observer failure is reported at
   * Session close, not here). A command that already ended is not stopped again. Throws
   * `CommandNotFoundError` for a handle the Session never launched.
   */
  stopSessionCommand(sessionId: string, commandId: string): Promise<void>;
}

/**
 * Registers the unsandboxed command tools `exec_command` and `command_session` (neither
 * read-only; declare them with `hostTool(...)`). POSIX only, no PTY. Commands run through one
 * supervisor, each in its own process group with stdin from /dev/null and the environment
 * policy's variables computed at spawn; each Session owns its commands, and closing it kills
 * and awaits every one (a `sessionEnd` hook).
 *
 * Observations: before each model request (a beforeModel hook), a `## Command observations`
 * block is appended to the request's `context` with one line per yielded handle (an
 * `exec_command` that returned `running`), newest first, at most 32 and a count of the rest:
 * its commandId, state, outcome, exit code, signal and deadline, never command text or
 * output. A command that ends turns its line terminal at once, without a poll; the line goes
 * when a terminal report of it is returned to the model. Per-request context, never history,
 * so compaction keeps it and compaction requests (which run no beforeModel hook) never carry
 * it; forgotten at Session close. At `sessionStart`, handles left unresolved in the saved
 * receipts are rebuilt: terminal through `readTerminal`, else `unavailable` (no process is
 * restored).
 *
 * Permission: `exec_command` goes to the host's policy with admission `{ policyKey, command,
 * lifetime, workdir }`, `policyKey` being `"exec_command:session"` for a session-lifetime
 * launch so an ordinary grant never covers it. `command_session` on the calling Session's own
 * handles is allowed by this plugin's `toolPermission` hook: the process was approved once.
 *
 * A session-lifetime command dies with an abort of the Run that launched it only while that
 * Run is current: the tie is dropped when a turn of a later Run of the Session starts, or
 * when the Session closes. Gap: between the launching Run's normal end and the next Run's
 * first turn, aborting the finished Run's signal (e.g. the host's `RunOptions.signal`, or the
 * Session's signal) still kills it.
 *
 * @throws CommandOptionsError (`command_options_invalid`), WorkspaceRootError, EnvironmentPolicyError; see {@link CommandSessionOptions}.
 */
export function createCommandSessionPlugin(options: CommandSessionOptions): CommandSessionPlugin {
  const runtime = new CommandSessionRuntime(resolveCommandSessionOptions(options));
  const plugin: CommandSessionPlugin = {
    name: commandSessionPluginName,
    apply: (host) => applyCommandSession(host, runtime),
    close: () => runtime.closeAll(),
    sessionCommands: (sessionId) => runtime.sessionCommands(sessionId),
    stopSessionCommand: (sessionId, commandId) => runtime.stopSessionCommand(sessionId, commandId),
  };
  return Object.freeze(plugin);
}

/** Registers both tools and the hooks of a command session over `runtime`; shared with the sandboxed plugin. */
export function applyCommandSession(host: NodeRunnerHost, runtime: CommandSessionRuntime): void {
  host.registerTool(createExecCommandTool(() => runtime));
  host.registerTool(createCommandSessionTool(() => runtime));
  // Per-request context, never history: compaction requests run no beforeModel hook.
  host.hooks.beforeModel((request, info) => {
    const block = runtime.observations.render(info.sessionId);
    return block === undefined ? request : { ...request, context: appendContext(request.context, block) };
  });
  host.hooks.sessionStart((info) => runtime.restoreSession(info));
  // No run-end hook exists: a turn of a later Run is when the earlier Run is known to have ended.
  host.hooks.turnStart((info) => runtime.handles.runSeen(info.sessionId, info.runId));
  host.hooks.sessionEnd((info) => runtime.closeSession(info.sessionId));
}
