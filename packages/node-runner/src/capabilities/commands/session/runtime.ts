import { errorMessage, type SessionStartInfo, type ToolContext, ToolInputError } from "@castellan/harness";
import { ToolExecutionHostError } from "../../../kernel/errors/errors.js";
import {
  CommandLimitError,
  CommandNotFoundError,
  type CommandResult,
  CommandSpawnError,
  type CommandSpawnLayer,
  type CommandSupervisor,
} from "../../../platform/process/index.js";
import { CommandRuntime } from "../runtime/command-runtime.js";
import { CommandObserverError } from "./errors.js";
import { type CommandObservation, CommandObservations, reportOfReceipt } from "./observations.js";
import type { ResolvedCommandSessionOptions } from "./options.js";
import type { CommandSessionLifetime, CommandTerminalUpdate, SessionCommand } from "./ports.js";
import { type CommandSessionReport, liveReport, receiptReport } from "./report.js";
import { type CommandHandle, SessionHandles } from "./session-handles.js";

/** What `exec_command` launches, checked by its `admit`. */
export interface LaunchRequest {
  readonly command: string;
  readonly lifetime: CommandSessionLifetime;
  /** The absolute working directory. */
  readonly cwd: string;
}

/**
 * What a layer above (a sandbox) adds to the runtime: the rewrite of each approved command into
 * its final argv and env just before spawn, and a check of each `exec_command` call's context.
 */
export interface CommandSessionLayer {
  /** Given to every spawn: turns the command into its final argv/env, and may annotate its stderr. */
  readonly spawn: CommandSpawnLayer;
  /** Throws a `ToolInputError` refusing a call this layer does not serve; run in `admit` and again before launch. */
  checkCall(ctx: { readonly sandbox: unknown }): void;
}

/**
 * The plugin's state behind both tools and the host methods: one supervisor whose owners are
 * Session ids, and the handles each Session launched.
 */
export class CommandSessionRuntime {
  readonly options: ResolvedCommandSessionOptions;
  /** Where the commands run: the root, environment, limits and sandbox layer. */
  readonly commands: CommandRuntime;
  readonly supervisor: CommandSupervisor;
  readonly handles = new SessionHandles();
  /** Each Session's yielded handles until their terminal report reaches the model. */
  readonly observations = new CommandObservations();
  /** The sandbox layer, when the commands run in one. */
  readonly layer: CommandSessionLayer | undefined;

  /**
   * Over `commands` when given (a `workspace()` Session's own runtime, whose spawn layer must be
   * `layer`'s), else over a runtime of its own built from `options` and `layer`.
   */
  constructor(options: ResolvedCommandSessionOptions, layer?: CommandSessionLayer, commands?: CommandRuntime) {
    this.options = options;
    this.layer = layer;
    this.commands =
      commands ??
      new CommandRuntime({
        root: options.root,
        shell: options.shell,
        environment: options.environment,
        limits: {
          executionTimeoutMs: options.executionTimeoutMs,
          killGraceMs: options.killGraceMs,
          maxLiveCommands: options.maxLiveCommands,
          maxOutputBytesPerStream: options.maxOutputBytesPerStream,
        },
        spawnLayer: layer?.spawn,
      });
    this.supervisor = this.commands.supervisor;
  }

  /** Refuses (`command_limit_reached`) when the Session may not launch another command now. */
  checkCanLaunch(sessionId: string): void {
    try {
      this.supervisor.checkCanSpawn(sessionId);
    } catch (error) {
      if (error instanceof CommandLimitError) throw limitRefusal(error);
      throw error;
    }
  }

  /** Spawns the command, waits up to `initialYieldMs`, and reports its end or its running handle. */
  async launch(request: LaunchRequest, ctx: ToolContext): Promise<CommandSessionReport> {
    const { sessionId, runId, toolCallId } = ctx;
    let settlePublished = () => {};
    const published = new Promise<void>((resolve) => {
      settlePublished = resolve;
    });
    // The start is announced before the end, even for a command that ends at once.
    let announceStarted = () => {};
    const started = new Promise<void>((resolve) => {
      announceStarted = resolve;
    });
    // An ordinary command dies with its Run's signal; a session one only while its Run is current.
    let signal = ctx.signal;
    let detach: (() => void) | undefined;
    if (request.lifetime === "session") {
      const controller = new AbortController();
      detach = this.handles.link(sessionId, runId, ctx.signal, controller);
      signal = controller.signal;
    }
    const onTerminal = async (result: CommandResult) => {
      // A late end replaces "running" in the next request's observations, without a poll.
      this.observations.ended(sessionId, result.commandId, result);
      detach?.();
      await started;
      try {
        await this.#publishEnd(request, ctx, result);
      } finally {
        settlePublished();
      }
    };
    let spawned: Awaited<ReturnType<CommandSupervisor["spawn"]>>;
    try {
      spawned = await this.supervisor.spawn({
        ownerKey: sessionId,
        command: request.command,
        shell: this.commands.shell,
        cwd: request.cwd,
        // Computed now, from the host's environment at this spawn.
        env: this.commands.environment.environmentFor(),
        lifetime: request.lifetime === "session" ? "session" : "ordinary",
        signal,
        onTerminal,
        ...(this.commands.spawnLayer ? { layer: this.commands.spawnLayer } : {}),
      });
    } catch (error) {
      detach?.();
      if (error instanceof CommandLimitError) throw limitRefusal(error);
      if (error instanceof CommandSpawnError) {
        throw new ToolExecutionHostError(`The command could not be started: ${error.message}`, {
          toolName: ctx.toolName,
          toolCallId,
          cause: error,
        });
      }
      throw error;
    }
    const handle: CommandHandle = { ...request, commandId: spawned.commandId, sessionId, runId, toolCallId, published };
    this.handles.add(handle);
    if (request.lifetime === "session") await this.#announce(sessionId);
    announceStarted();
    // No signal here: an abort ends the command itself, and the wait returns with its end.
    await this.supervisor.waitFor(spawned.commandId, { untilMs: this.options.initialYieldMs });
    const report = this.report(spawned.commandId, ctx);
    // In the same synchronous step as the report: an end after it reaches `onTerminal` above.
    if (report.state === "running") {
      this.observations.yielded(sessionId, {
        commandId: report.commandId,
        state: "running",
        outcome: null,
        exitCode: null,
        signal: null,
        deadline: report.deadline,
      });
    }
    return report;
  }

  /**
   * The report of a live record now: the delta since the last report. A terminal report is the
   * record's last, so the record is released; later reads go to the host's store.
   */
  report(commandId: string, ctx?: { readonly toolName: string; readonly toolCallId: string }): CommandSessionReport {
    const info = this.supervisor.get(commandId);
    if (!info) throw new CommandNotFoundError(commandId);
    const delta = this.supervisor.readDelta(commandId);
    if (delta.result) {
      this.supervisor.release(commandId);
      this.observations.delivered(info.ownerKey, commandId);
      if (delta.result.layerError !== undefined && ctx) {
        // The command ran and ended, but the sandbox could not finish its report: a host failure.
        throw new ToolExecutionHostError(
          `${commandId} ended (${delta.result.outcome}, exit code ${delta.result.exitCode}), but the sandbox failed to finalize its report: ${errorMessage(delta.result.layerError)}`,
          { toolName: ctx.toolName, toolCallId: ctx.toolCallId, cause: delta.result.layerError },
        );
      }
    }
    return liveReport(info, delta, delta.result);
  }

  /** `command_session` on a handle of `ctx`'s Session: poll for new output, or stop and await the end. */
  async act(commandId: string, action: "poll" | "stop", ctx: ToolContext): Promise<CommandSessionReport> {
    if (this.supervisor.get(commandId) !== undefined && this.handles.get(ctx.sessionId, commandId)) {
      if (action === "stop") await this.supervisor.stop(commandId);
      else {
        await this.supervisor.waitFor(commandId, {
          untilMs: this.options.pollWaitMs,
          untilOutput: true,
          signal: ctx.signal,
        });
      }
      return this.report(commandId, ctx);
    }
    // Released: it ended and its last report was given. Stopping it needs nothing.
    const receipt = await this.readReceipt(ctx.sessionId, commandId, ctx);
    if (receipt) {
      this.observations.delivered(ctx.sessionId, commandId);
      return receiptReport(receipt);
    }
    throw new ToolInputError(
      "command_released",
      `${commandId} ended and its final report was already given; the host keeps no receipt of it. Launch a new command if you need its output again.`,
    );
  }

  /** The host's receipt of a released handle of `sessionId`, or undefined; a failing store is a host error. */
  async readReceipt(
    sessionId: string,
    commandId: string,
    ctx: { readonly toolName: string; readonly toolCallId: string },
  ): Promise<CommandTerminalUpdate | undefined> {
    const read = this.options.readTerminal;
    if (!read) return undefined;
    let receipt: CommandTerminalUpdate | undefined;
    try {
      receipt = await read({ sessionId, commandId });
    } catch (error) {
      throw new ToolExecutionHostError(`The host's terminal store failed to read ${commandId}.`, {
        toolName: ctx.toolName,
        toolCallId: ctx.toolCallId,
        cause: error,
      });
    }
    // A store that answers for another Session's handle is not believed.
    return receipt?.sessionId === sessionId && receipt.commandId === commandId ? receipt : undefined;
  }

  /** The Session's live session-lifetime commands, oldest first, with their output since launch. */
  sessionCommands(sessionId: string): readonly SessionCommand[] {
    const listed: SessionCommand[] = [];
    for (const info of this.supervisor.list(sessionId)) {
      const handle = this.handles.get(sessionId, info.commandId);
      if (info.lifetime !== "session" || info.state !== "running" || !handle) continue;
      const output = this.supervisor.readOutput(info.commandId);
      listed.push(
        Object.freeze({
          commandId: info.commandId,
          command: info.command,
          runId: handle.runId,
          toolCallId: handle.toolCallId,
          startedAt: info.startedAt,
          stdout: output.stdout,
          stderr: output.stderr,
        }),
      );
    }
    return Object.freeze(listed);
  }

  /** Stops a live command of the Session like `stop`, and resolves once its end was published. */
  async stopSessionCommand(sessionId: string, commandId: string): Promise<void> {
    const handle = this.handles.get(sessionId, commandId);
    if (!handle) throw new CommandNotFoundError(commandId);
    if (this.supervisor.get(commandId)?.state === "running") await this.supervisor.stop(commandId);
    await handle.published;
  }

  /**
   * Ends every command of the Session (outcome `cleanup`), waits for their observers, forgets
   * the Session, and only then throws `command_observer_failed` if any observer failed.
   */
  async closeSession(sessionId: string): Promise<void> {
    this.handles.runSeen(sessionId, "");
    let drained: Awaited<ReturnType<CommandSupervisor["drainObservers"]>>;
    try {
      await this.supervisor.killOwner(sessionId);
      drained = await this.supervisor.drainObservers(sessionId);
    } finally {
      this.observations.forget(sessionId);
    }
    const own = this.handles.forget(sessionId);
    const failures = [...drained.map((failure) => failure.error), ...own];
    if (failures.length > 0) throw new CommandObserverError(sessionId, failures);
  }

  /** Ends every Session's commands (the Runner closed); observer failures are dropped with it. */
  async closeAll(): Promise<void> {
    for (const owner of this.supervisor.owners()) await this.supervisor.killOwner(owner);
    await this.supervisor.drainObservers();
    for (const sessionId of this.handles.sessions()) this.handles.forget(sessionId);
    this.observations.forgetAll();
  }

  /**
   * At a Session's start, rebuilds the observations of its unresolved handles from the saved
   * receipts: each `exec_command` that returned `running` and of which no terminal report
   * reached the model. A handle still owned here is shown as it is; one the host's store has a
   * receipt of is shown terminal; any other is `unavailable`. Only observations are restored,
   * never processes. A failing store leaves the handle `unavailable` rather than failing the open.
   */
  async restoreSession(info: SessionStartInfo): Promise<void> {
    const { sessionId } = info;
    const launched = new Map<string, string | null>();
    const resolved = new Set<string>();
    for (const name of ["exec_command", "command_session"]) {
      for (const receipt of info.toolCalls(name)) {
        const report = reportOfReceipt(receipt);
        if (!report) continue;
        if (report.state === "terminal") resolved.add(report.commandId);
        else if (name === "exec_command") launched.set(report.commandId, report.deadline);
      }
    }
    const rebuilt: CommandObservation[] = [];
    for (const [commandId, deadline] of launched) {
      if (resolved.has(commandId)) continue;
      rebuilt.push(await this.#rebuild(sessionId, commandId, deadline));
    }
    this.observations.reset(sessionId, rebuilt);
  }

  async #rebuild(sessionId: string, commandId: string, deadline: string | null): Promise<CommandObservation> {
    const live = this.supervisor.get(commandId);
    if (live?.ownerKey === sessionId) {
      const result = live.result;
      return {
        commandId,
        state: result ? "terminal" : "running",
        outcome: result?.outcome ?? null,
        exitCode: result?.exitCode ?? null,
        signal: result?.signal ?? null,
        deadline: live.deadlineAt,
      };
    }
    let receipt: CommandTerminalUpdate | undefined;
    try {
      receipt = await this.readReceipt(sessionId, commandId, { toolName: "exec_command", toolCallId: "" });
    } catch {
      receipt = undefined;
    }
    if (receipt) {
      return {
        commandId,
        state: "terminal",
        outcome: receipt.outcome,
        exitCode: receipt.exitCode,
        signal: receipt.signal,
        deadline,
      };
    }
    return { commandId, state: "unavailable", outcome: null, exitCode: null, signal: null, deadline };
  }

  async #publishEnd(request: LaunchRequest, ctx: ToolContext, result: CommandResult): Promise<void> {
    const failures: unknown[] = [];
    try {
      await this.options.onTerminalUpdate?.(
        Object.freeze({
          sessionId: ctx.sessionId,
          runId: ctx.runId,
          toolCallId: ctx.toolCallId,
          commandId: result.commandId,
          command: request.command,
          lifetime: request.lifetime,
          outcome: result.outcome,
          exitCode: result.exitCode,
          signal: result.signal,
          stdout: result.stdout,
          stderr: result.stderr,
          startedAt: result.startedAt,
          endedAt: result.endedAt,
        }),
      );
    } catch (error) {
      failures.push(error);
    }
    if (request.lifetime === "session") {
      try {
        await this.options.onSessionCommandsChanged?.({ sessionId: ctx.sessionId });
      } catch (error) {
        failures.push(error);
      }
    }
    // Thrown for the supervisor to keep: Session close reports it.
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, "Two command observers failed.");
  }

  async #announce(sessionId: string): Promise<void> {
    try {
      await this.options.onSessionCommandsChanged?.({ sessionId });
    } catch (error) {
      this.handles.fail(sessionId, error);
    }
  }
}

function limitRefusal(error: CommandLimitError): ToolInputError {
  return new ToolInputError(
    "command_limit_reached",
    `This Session already has ${error.limit} live commands, the most allowed. Stop one with command_session, or wait for one to end.`,
    { cause: error },
  );
}
