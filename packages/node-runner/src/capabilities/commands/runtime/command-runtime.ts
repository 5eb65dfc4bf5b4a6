import { CastellanError } from "@castellan/harness";
import {
  type ResolvedEnvironmentPolicy,
  resolveEnvironmentPolicy,
} from "../../../platform/environment/environment-policy.js";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import {
  type CommandResult,
  type CommandShell,
  type CommandSpawnLayer,
  type CommandSupervisor,
  createCommandSupervisor,
} from "../../../platform/process/index.js";
import type { ResolvedSandboxPolicy } from "../../../platform/sandbox/config.js";
import { CommandOptionsError } from "./errors.js";
import { type CommandRunRequest, type CommandRunResult, runRequestProblem } from "./request.js";
import { resolveWorkdir } from "./workdir.js";

/** The OS sandbox a runtime's commands run in, as its owner sees it. */
export interface CommandRuntimeSandbox {
  /** The policy the sandbox was opened with: the root's own rules and the declared network. */
  readonly policy: ResolvedSandboxPolicy;
  /** Lets commands reach `hosts` (canonical host names) from now on, for this runtime only. */
  allowNetworkHosts(hosts: readonly string[]): Promise<void>;
}

/** The checked limits a runtime's supervisor enforces. */
export interface ResolvedCommandRuntimeLimits {
  readonly executionTimeoutMs: number;
  readonly maxOutputBytesPerStream: number;
  readonly killGraceMs: number;
  readonly maxLiveCommands: number;
}

/** What a runtime is made of; `createCommandRuntime` and the command tools build it. */
export interface CommandRuntimeParts {
  readonly root: WorkspaceRoot;
  readonly shell: CommandShell;
  readonly environment: ResolvedEnvironmentPolicy;
  readonly limits: ResolvedCommandRuntimeLimits;
  /** The sandbox's rewrite of each spawn; undefined when commands run uncontained. */
  readonly spawnLayer?: CommandSpawnLayer | undefined;
  readonly sandbox?: CommandRuntimeSandbox | undefined;
  /** Run once at close, after every command ended: ends what the runtime opened (its sandbox worker). */
  readonly release?: (() => Promise<void>) | undefined;
}

/** The owner a host's commands are counted under when the request names none. */
const hostOwner = "host";

/**
 * Where commands run: a root, an environment policy, a supervisor with its limits and, when
 * contained, the OS sandbox every spawn goes through. `workspace()` builds its command tools on
 * one per Session; a host (the job server) makes one with `createCommandRuntime` and runs its
 * own install, validation and git commands on it with {@link CommandRuntime.run}: no Session,
 * no agent, no permission asked (the host is the authority), nothing written to any history.
 */
export class CommandRuntime {
  readonly root: WorkspaceRoot;
  readonly shell: CommandShell;
  readonly environment: ResolvedEnvironmentPolicy;
  readonly limits: ResolvedCommandRuntimeLimits;
  readonly supervisor: CommandSupervisor;
  /** The sandbox's rewrite of each spawn; undefined when commands run uncontained. */
  readonly spawnLayer: CommandSpawnLayer | undefined;
  /** The OS sandbox this runtime opened; undefined for `"none"` and for a layer it does not own. */
  readonly sandbox: CommandRuntimeSandbox | undefined;
  readonly #release: (() => Promise<void>) | undefined;
  #closing: Promise<void> | undefined;

  constructor(parts: CommandRuntimeParts) {
    this.root = parts.root;
    this.shell = parts.shell;
    this.environment = parts.environment;
    this.limits = parts.limits;
    this.spawnLayer = parts.spawnLayer;
    this.sandbox = parts.sandbox;
    this.#release = parts.release;
    this.supervisor = createCommandSupervisor(parts.limits);
  }

  /** `sandboxed` when every spawn goes through a sandbox layer, else `uncontained`. */
  get containment(): "sandboxed" | "uncontained" {
    return this.spawnLayer === undefined ? "uncontained" : "sandboxed";
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Runs one command to its end in its own process group, with the runtime's environment
   * policy (`request.env` set over it), under its sandbox when it has one, and returns its
   * bounded output. A failing command is a result, not an error.
   *
   * @throws CommandOptionsError (`command_options_invalid`) for a malformed request; CastellanError `command_runtime_closed` after {@link close}; the supervisor's
   *   `command_limit_reached`, `command_aborted` or `command_spawn_failed`; EnvironmentPolicyError for a
   *   refused `env` name; a workspace path refusal (`ToolInputError`) for a bad `cwd`.
   */
  run(request: CommandRunRequest): Promise<CommandRunResult> {
    const problem = runRequestProblem(request, "CommandRuntime.run");
    if (problem) return Promise.reject(new CommandOptionsError(problem));
    return this.runFor(hostOwner, request);
  }

  /** {@link run}, counted toward (and killed with) `owner`'s commands: a Session's id for `runSessionCommand`. */
  async runFor(owner: string, request: CommandRunRequest): Promise<CommandRunResult> {
    this.#checkOpen();
    const workdir = await resolveWorkdir(this.root, request.cwd);
    const environment =
      request.env === undefined
        ? this.environment.environmentFor()
        : resolveEnvironmentPolicy(
            { ...this.environment.policy, set: { ...this.environment.policy.set, ...request.env } },
            "the command's env",
          ).environmentFor();
    this.#checkOpen();
    const started = performance.now();
    let settle: (result: CommandResult) => void = () => {};
    const ended = new Promise<CommandResult>((resolve) => {
      settle = resolve;
    });
    const spawned = await this.supervisor.spawn({
      ownerKey: owner,
      command: request.command,
      shell: this.shell,
      cwd: workdir.absolute,
      env: environment,
      lifetime: "ordinary",
      onTerminal: (result) => settle(result),
      executionTimeoutMs: request.timeoutMs ?? this.limits.executionTimeoutMs,
      ...(request.maxOutputBytesPerStream !== undefined
        ? { maxOutputBytesPerStream: request.maxOutputBytesPerStream }
        : {}),
      ...(request.onOutput ? { onOutput: request.onOutput } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(this.spawnLayer ? { layer: this.spawnLayer } : {}),
    });
    const result = await ended;
    this.supervisor.release(spawned.commandId);
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

  /**
   * Ends every command still running (outcome `cleanup`), waits for their observers, then
   * ends what the runtime opened: its sandbox is reset and its worker stopped. Idempotent; a
   * later {@link run} is refused.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    for (const owner of this.supervisor.owners()) await this.supervisor.killOwner(owner);
    await this.supervisor.drainObservers();
    await this.#release?.();
  }

  #checkOpen(): void {
    if (this.#closing) {
      throw new CastellanError("command_runtime_closed", `The command runtime at ${this.root.realPath} is closed.`);
    }
  }
}
