import { CastellanError } from "@castellan/harness";
import { InvalidOptionsError, SessionStateError } from "../../../kernel/errors/errors.js";
import { NodeSession, type Session } from "../../../kernel/session/session.js";
import { resolveEnvironmentPolicy } from "../../../platform/environment/environment-policy.js";
import type { CommandOutcome, CommandOutputChunk, CommandResult } from "../../../platform/process/index.js";
import { commandRuntimeOfTool } from "../session/exec-command-tool.js";
import { resolveWorkdir } from "../session/workdir.js";

/** What {@link runSessionCommand} runs. */
export interface SessionCommandRequest {
  /** The shell command text, 1 to 65,536 bytes. */
  readonly command: string;
  /** A workspace path beneath the Session's working directory (the workspace root). Default `.`. */
  readonly cwd?: string;
  /**
   * Variables set over the Session's environment policy, as its `set` would be: the secret
   * filter does not remove them, but a name that is never passed (`CASTELLAN_*`, `OPENAI_*`,
   * ...) is refused, and the policy's `includeOnly` still applies. Default: none.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The deadline from spawn (then `timeout`, exit code 124). Required; 1 to 2,147,483,647 ms. */
  readonly timeoutMs: number;
  /** Bytes kept of each stream (first and last halves). Default: the Session's command bound; 1,024 to 16,777,216. */
  readonly maxOutputBytesPerStream?: number;
  /** Live output as it is read, for heartbeats; what it throws is ignored. Default: none. */
  readonly onOutput?: (chunk: CommandOutputChunk) => void;
  /** Aborting it ends the command's group (outcome `cleanup`). */
  readonly signal?: AbortSignal;
}

/** How a host command ended, with its bounded output. */
export interface SessionCommandResult {
  readonly outcome: CommandOutcome;
  /** The exit code; 124 for `timeout`; null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The kept text of each stream: its first and last halves when over the bound. */
  readonly stdout: string;
  readonly stderr: string;
  /** Bytes left out between the kept halves, per stream. */
  readonly droppedBytes: { readonly stdout: number; readonly stderr: number };
  readonly durationMs: number;
}

const maxCommandBytes = 65_536;

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
  const runtime = runtimeOf(bound.scope);
  const workdir = await resolveWorkdir(runtime.options.root, request.cwd);
  const environment =
    request.env === undefined
      ? runtime.options.environment.environmentFor()
      : resolveEnvironmentPolicy(
          { ...runtime.options.environment.policy, set: { ...runtime.options.environment.policy.set, ...request.env } },
          "runSessionCommand",
        ).environmentFor();
  const started = performance.now();
  let settle: (result: CommandResult) => void = () => {};
  const ended = new Promise<CommandResult>((resolve) => {
    settle = resolve;
  });
  const spawned = await runtime.supervisor.spawn({
    ownerKey: session.id,
    command: request.command,
    shell: runtime.options.shell,
    cwd: workdir.absolute,
    env: environment,
    lifetime: "ordinary",
    onTerminal: (result) => settle(result),
    executionTimeoutMs: request.timeoutMs,
    ...(request.maxOutputBytesPerStream !== undefined
      ? { maxOutputBytesPerStream: request.maxOutputBytesPerStream }
      : {}),
    ...(request.onOutput ? { onOutput: request.onOutput } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(runtime.layer ? { layer: runtime.layer.spawn } : {}),
  });
  const result = await ended;
  runtime.supervisor.release(spawned.commandId);
  return Object.freeze({
    outcome: result.outcome,
    exitCode: result.exitCode,
    signal: result.signal,
    stdout: result.stdout.text,
    stderr: result.stderr.text,
    droppedBytes: Object.freeze({ stdout: result.stdout.droppedBytes, stderr: result.stderr.droppedBytes }),
    durationMs: Math.round(performance.now() - started),
  });
}

function checkRequest(request: SessionCommandRequest): void {
  if (request === null || typeof request !== "object")
    throw new InvalidOptionsError("runSessionCommand: a request is required.");
  const bytes = typeof request.command === "string" ? Buffer.byteLength(request.command, "utf8") : 0;
  if (bytes < 1 || bytes > maxCommandBytes) {
    throw new InvalidOptionsError(
      `runSessionCommand: command must be 1 to ${maxCommandBytes.toLocaleString("en")} bytes of UTF-8.`,
    );
  }
  if (!Number.isInteger(request.timeoutMs) || request.timeoutMs < 1 || request.timeoutMs > 2_147_483_647) {
    throw new InvalidOptionsError("runSessionCommand: timeoutMs is required: an integer from 1 to 2,147,483,647.");
  }
  if (request.cwd !== undefined && typeof request.cwd !== "string")
    throw new InvalidOptionsError("runSessionCommand: cwd must be a workspace path.");
  if (request.onOutput !== undefined && typeof request.onOutput !== "function") {
    throw new InvalidOptionsError("runSessionCommand: onOutput must be a function.");
  }
}
