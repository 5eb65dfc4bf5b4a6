import { CastellanError } from "@castellan/harness";
import { InvalidOptionsError, SessionStateError } from "../../../kernel/errors/errors.js";
import { NodeSession, type Session } from "../../../kernel/session/session.js";
import { type CommandRunRequest, type CommandRunResult, runRequestProblem } from "../runtime/request.js";
import { commandRuntimeOfTool } from "../session/exec-command-tool.js";

/** What {@link runSessionCommand} runs: a {@link CommandRunRequest} whose deadline is required. */
export interface SessionCommandRequest extends CommandRunRequest {
  /** The deadline from spawn (then `timeout`, exit code 124). Required; 1 to 2,147,483,647 ms. */
  readonly timeoutMs: number;
}

/** How a host command ended, with its bounded output. */
export type SessionCommandResult = CommandRunResult;

/**
 * Runs one command for the host, not the model, where the Session's `exec_command` runs its
 * commands: on the same supervisor, in the same sandbox (the Session's `workspace()` worker or
 * the sandbox plugin's runtime) or uncontained where those are (`sandbox: "none"`, the
 * unsandboxed plugin), with the same environment policy and output bounds, in its own process
 * group. It asks no permission (the host is the authority) and writes nothing to history. The
 * group is killed on abort and when the Session closes; it counts toward the Session's
 * `maxLiveCommands` while it runs.
 *
 * @throws InvalidOptionsError (`invalid_options`) for a malformed request; SessionStateError (`session_closed`);
 *   CastellanError `command_tools_missing` when the Session has no `exec_command`; the supervisor's
 *   `command_limit_reached`, `command_aborted` or `command_spawn_failed`; EnvironmentPolicyError for a refused `env` name;
 *   a workspace path refusal (`ToolInputError`) for a bad `cwd`.
 */
export async function runSessionCommand(
  session: Session,
  request: SessionCommandRequest,
): Promise<SessionCommandResult> {
  if (!(session instanceof NodeSession)) {
    throw new InvalidOptionsError("runSessionCommand needs a Session opened by createNodeRunner or openSession.");
  }
  if (session.isClosing) throw new SessionStateError("session_closed", `Session "${session.id}" is closed.`);
  checkRequest(request);
  const bound = session.boundToolScope("exec_command");
  const runtimeOf = bound ? commandRuntimeOfTool(bound.tool) : undefined;
  if (!bound || !runtimeOf) {
    throw new CastellanError(
      "command_tools_missing",
      `Session "${session.id}" has no exec_command from Castellan's command tools (workspace(), createCommandSessionPlugin or createSandboxRuntimeCommandSessionPlugin), so there is nowhere to run a host command.`,
    );
  }
  return runtimeOf(bound.scope).commands.runFor(session.id, request);
}

function checkRequest(request: SessionCommandRequest): void {
  const problem = runRequestProblem(request, "runSessionCommand", true);
  if (problem) throw new InvalidOptionsError(problem);
}
