// One spawned command: its process group, its two output captures, its deadline and how it
// ended. The supervisor owns the registry around it; this file owns the process.
import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";
import { CommandSpawnError } from "./errors.js";
import { guardGroup, guardNamespaceInit, unguardGroup, unguardNamespaceInit } from "./exit-guard.js";
import {
  identifyNamespaceInit,
  killNamespaceInit,
  maxReportFd,
  minReportFd,
  type NamespaceInit,
  namespaceInitGone,
  namespaceInitKillEnabled,
} from "./namespace-init.js";
import type { CommandSupervisorLimits } from "./options.js";
import { OutputCapture } from "./output-capture.js";
import { terminateGroup } from "./process-group.js";
import { type DetachedProcess, spawnDetached } from "./spawn-detached.js";
import {
  type CommandInfo,
  type CommandLifetime,
  type CommandOutcome,
  type CommandResult,
  type CommandSpawnLayer,
  type CommandSpawnRequest,
  timeoutExitCode,
} from "./types.js";

/** Why the supervisor is ending a group; the first one given is the outcome. */
export type TerminationReason = "timeout" | "stop" | "cleanup";

/** How long output is still read after the group is gone, at least: a process that left the group may hold the pipe. */
const minimumDrainMs = 100;
/**
 * How long a namespace report is still awaited once the group is gone, at least. The report's
 * writer is in the group, so its end follows at once; a report later than this is still acted on.
 */
const minimumReportWaitMs = 1_000;

type LeaderExit = readonly [code: number | null, signal: NodeJS.Signals | null];

/** A command spawned and not yet released. */
export class SupervisedCommand {
  // These fields mean what CommandInfo's of the same names do.
  readonly commandId: string;
  readonly ownerKey: string;
  readonly command: string;
  readonly lifetime: CommandLifetime;
  readonly processGroupId: number;
  readonly startedAt: string;
  readonly deadlineAt: string | null;
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  /** Resolves with the result once the group is gone and the output is read to its end; never rejects. */
  readonly ended: Promise<CommandResult>;
  readonly #limits: CommandSupervisorLimits;
  readonly #onChunk: CommandSpawnRequest["onOutput"];
  #layerError: unknown;
  readonly #signal: AbortSignal | undefined;
  readonly #outputListeners = new Set<() => void>();
  readonly #executionTimer: NodeJS.Timeout | undefined;
  #reason: TerminationReason | undefined;
  #leaderExited = false;
  #termination: Promise<void> | undefined;
  #result: CommandResult | undefined;
  readonly #layer: CommandSpawnLayer | undefined;
  /** The PID namespace init the layer's program reported, once read. */
  #init: NamespaceInit | undefined;
  /** Resolves once the report is read (with or without an init); at once when none was asked for. */
  readonly #reported: Promise<void>;
  /** Set when the supervisor starts ending the processes: a report read from then on is killed at once. */
  #ending = false;

  /**
   * Spawns `request` in a new process group, with stdin from /dev/null. Throws
   * `CommandSpawnError` when the process cannot start. `onEnded` is called once, with the
   * result, just before `ended` resolves.
   */
  static async start(
    request: CommandSpawnRequest,
    limits: CommandSupervisorLimits,
    onEnded: (command: SupervisedCommand, result: CommandResult) => void,
  ): Promise<SupervisedCommand> {
    const cwd = request.cwd instanceof URL ? fileURLToPath(request.cwd) : request.cwd;
    const commandId = `cmd_${randomBytes(12).toString("hex")}`;
    let argv: readonly string[] = [request.shell.executable, ...request.shell.arguments, request.command];
    let env = request.env;
    let reportFd: number | undefined;
    if (request.layer) {
      // The layer's argv and env are final; a layer that fails refuses the spawn.
      try {
        const prepared = await request.layer.prepare({
          commandId,
          command: request.command,
          shell: request.shell,
          cwd,
          env: request.env,
        });
        if (!Array.isArray(prepared?.argv) || prepared.argv.length === 0 || typeof prepared.argv[0] !== "string") {
          throw new TypeError("The spawn layer returned no argv.");
        }
        argv = [...prepared.argv];
        env = prepared.env;
        reportFd = checkReportFd(prepared.pidNamespaceReportFd);
      } catch (error) {
        throw new CommandSpawnError(request.shell.executable, cwd, { cause: error });
      }
    }
    const [executable, ...args] = argv as [string, ...string[]];
    const startedAt = new Date();
    let child: DetachedProcess;
    try {
      child = spawnDetached(executable, args, {
        cwd,
        env,
        ...(reportFd !== undefined ? { pidNamespaceReportFd: reportFd } : {}),
      });
    } catch (error) {
      await releaseLayer(request, commandId);
      throw new CommandSpawnError(executable, cwd, { cause: error });
    }
    // Guarded from the first moment: the host may exit while this waits for "spawn" (a brokered
    // command's pid is known only then; the broker kills what it started if the host goes).
    if (child.pid !== undefined) guardGroup(child.pid);
    const leaderExit = new Promise<LeaderExit>((resolve) =>
      child.once("exit", (code, signal) => resolve([code, signal])),
    );
    const failure = await new Promise<unknown>((resolve) => {
      child.once("spawn", () => resolve(undefined));
      child.once("error", resolve);
    });
    if (failure === undefined && child.pid !== undefined) guardGroup(child.pid);
    if (failure !== undefined || child.pid === undefined) {
      if (child.pid !== undefined) unguardGroup(child.pid);
      child.stdout?.destroy();
      child.stderr?.destroy();
      await releaseLayer(request, commandId);
      throw new CommandSpawnError(executable, cwd, { cause: failure });
    }
    return new SupervisedCommand(commandId, child, child.pid, request, limits, startedAt, leaderExit, onEnded);
  }

  private constructor(
    commandId: string,
    child: DetachedProcess,
    processGroupId: number,
    request: CommandSpawnRequest,
    limits: CommandSupervisorLimits,
    startedAt: Date,
    leaderExit: Promise<LeaderExit>,
    onEnded: (command: SupervisedCommand, result: CommandResult) => void,
  ) {
    this.commandId = commandId;
    this.#layer = request.layer;
    this.#reported = this.#watchReport(child.namespaceInit);
    this.ownerKey = request.ownerKey;
    this.command = request.command;
    this.lifetime = request.lifetime ?? "ordinary";
    this.processGroupId = processGroupId;
    this.startedAt = startedAt.toISOString();
    // A request may set its own deadline and output bound (a host's command); the rest are the supervisor's.
    limits = {
      ...limits,
      ...(request.executionTimeoutMs === undefined ? {} : { executionTimeoutMs: request.executionTimeoutMs }),
      ...(request.maxOutputBytesPerStream === undefined
        ? {}
        : { maxOutputBytesPerStream: request.maxOutputBytesPerStream }),
    };
    this.#limits = limits;
    this.#onChunk = request.onOutput;
    this.#signal = request.signal;
    this.stdout = new OutputCapture(limits.maxOutputBytesPerStream);
    this.stderr = new OutputCapture(limits.maxOutputBytesPerStream);
    // The kill goes to the group through process.kill, never child.kill; a failed one is not an event to crash on.
    child.on("error", () => undefined);
    const streams = [child.stdout as Readable, child.stderr as Readable];
    const closed = [
      this.#pipe(streams[0] as Readable, this.stdout, "stdout"),
      this.#pipe(streams[1] as Readable, this.stderr, "stderr"),
    ];
    if (this.lifetime === "ordinary") {
      this.deadlineAt = new Date(startedAt.getTime() + limits.executionTimeoutMs).toISOString();
      this.#executionTimer = setTimeout(() => void this.terminate("timeout"), limits.executionTimeoutMs);
    } else {
      this.deadlineAt = null;
    }
    this.ended = this.#supervise(leaderExit, streams, closed, onEnded);
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    // It may have aborted while the process was starting; a listener added now would never run.
    if (this.#signal?.aborted) void this.terminate("cleanup");
  }

  /** The result once ended. */
  get result(): CommandResult | undefined {
    return this.#result;
  }

  /** What the registry reports about it now. */
  info(): CommandInfo {
    return Object.freeze({
      commandId: this.commandId,
      ownerKey: this.ownerKey,
      command: this.command,
      lifetime: this.lifetime,
      processGroupId: this.processGroupId,
      startedAt: this.startedAt,
      deadlineAt: this.deadlineAt,
      state: this.#result === undefined ? "running" : "ended",
      result: this.#result,
    });
  }

  /** Calls `listener` after each chunk of output and once at the end; returns the unsubscriber. */
  onOutput(listener: () => void): () => void {
    this.#outputListeners.add(listener);
    return () => this.#outputListeners.delete(listener);
  }

  /**
   * Ends the group: SIGTERM, then SIGKILL after the grace; resolves with the result once it is
   * gone. The first reason given is the outcome, unless the leader had already exited by itself.
   */
  terminate(reason: TerminationReason): Promise<CommandResult> {
    if (this.#result === undefined) {
      if (!this.#leaderExited) this.#reason ??= reason;
      void this.#terminateGroup();
    }
    return this.ended;
  }

  readonly #onAbort = () => void this.terminate("cleanup");

  #terminateGroup(): Promise<void> {
    this.#termination ??= this.#endProcesses();
    return this.#termination;
  }

  /**
   * Ends the group and the namespace init its program reported: an init known now is killed
   * first, one reported later is killed when it is read, even after the group is gone.
   */
  async #endProcesses(): Promise<void> {
    this.#ending = true;
    if (this.#init) killNamespaceInit(this.#init);
    await terminateGroup(this.processGroupId, this.#limits.killGraceMs);
    // The report's writer was in the group: its end, with or without a pid, comes now.
    let timer: NodeJS.Timeout | undefined;
    const waitMs = Math.max(this.#limits.killGraceMs, minimumReportWaitMs);
    await Promise.race([this.#reported, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    const init = this.#init;
    if (init === undefined || !namespaceInitKillEnabled()) return;
    killNamespaceInit(init);
    await namespaceInitGone(init);
    unguardNamespaceInit(init);
  }

  /** Records the init the report names (guarded while it runs); once ending, kills it at once. */
  async #watchReport(report: Promise<number | undefined> | undefined): Promise<void> {
    const pid = await report;
    if (pid === undefined) return;
    const init = await identifyNamespaceInit(pid);
    // Gone already: its namespace went with it.
    if (init === undefined) return;
    this.#init = init;
    guardNamespaceInit(init);
    if (this.#ending && namespaceInitKillEnabled()) {
      killNamespaceInit(init);
      // After the wait for the report gave up, nothing else waits for this init: it is released here.
      void namespaceInitGone(init).then(() => unguardNamespaceInit(init));
    }
  }

  #pipe(stream: Readable, capture: OutputCapture, name: "stdout" | "stderr"): Promise<void> {
    const onChunk = this.#onChunk;
    const decoder = onChunk ? new StringDecoder("utf8") : undefined;
    const deliver = (text: string) => {
      if (!onChunk || text === "") return;
      try {
        onChunk({ stream: name, text });
      } catch {}
    };
    stream.on("data", (chunk: Buffer) => {
      capture.write(chunk);
      if (decoder) deliver(decoder.write(chunk));
      for (const listener of this.#outputListeners) listener();
    });
    if (decoder) stream.once("end", () => deliver(decoder.end()));
    // A read error ends the stream as its end would; what was read is kept.
    stream.on("error", () => undefined);
    return new Promise((resolve) => stream.once("close", () => resolve()));
  }

  async #supervise(
    leaderExit: Promise<LeaderExit>,
    streams: readonly Readable[],
    closed: readonly Promise<void>[],
    onEnded: (command: SupervisedCommand, result: CommandResult) => void,
  ): Promise<CommandResult> {
    const [code, signal] = await leaderExit;
    this.#leaderExited = true;
    clearTimeout(this.#executionTimer);
    // What the leader left running in its group (a `&` job) ends with it: nothing outlives its command.
    await this.#terminateGroup();
    unguardGroup(this.processGroupId);
    await drain(streams, closed, Math.max(this.#limits.killGraceMs, minimumDrainMs));
    await this.#finalize();
    this.stdout.end();
    this.stderr.end();
    this.#signal?.removeEventListener("abort", this.#onAbort);
    const result: CommandResult = Object.freeze({
      commandId: this.commandId,
      ...classify(this.#reason, code, signal),
      stdout: this.stdout.whole(),
      stderr: this.stderr.whole(),
      startedAt: this.startedAt,
      endedAt: new Date().toISOString(),
      ...(this.#layerError === undefined ? {} : { layerError: this.#layerError }),
    });
    this.#result = result;
    for (const listener of this.#outputListeners) listener();
    onEnded(this, result);
    return result;
  }

  /** The layer's addition to stderr, written at its end before the result is made; a failing layer adds nothing and is recorded. */
  async #finalize(): Promise<void> {
    const finalize = this.#layer?.finalize;
    if (!finalize) return;
    const given = this.stderr.whole().text;
    let annotated: unknown;
    try {
      annotated = await finalize.call(this.#layer, { commandId: this.commandId, command: this.command, stderr: given });
    } catch (error) {
      this.#layerError = error ?? new Error("The spawn layer's finalize failed.");
      return;
    }
    if (typeof annotated !== "string" || !annotated.startsWith(given) || annotated.length === given.length) return;
    this.stderr.write(Buffer.from(annotated.slice(given.length), "utf8"));
    for (const listener of this.#outputListeners) listener();
  }
}

/** The layer's report descriptor, checked: undefined, or an integer from 3 to 8. */
function checkReportFd(fd: unknown): number | undefined {
  if (fd === undefined) return undefined;
  if (!Number.isInteger(fd) || (fd as number) < minReportFd || (fd as number) > maxReportFd) {
    throw new TypeError(
      `The spawn layer's pidNamespaceReportFd must be an integer from ${minReportFd} to ${maxReportFd}.`,
    );
  }
  return fd as number;
}

/** A layer prepared a command that never started: its `finalize` still runs, so what it holds per command is released. */
async function releaseLayer(request: CommandSpawnRequest, commandId: string): Promise<void> {
  try {
    await request.layer?.finalize?.({ commandId, command: request.command, stderr: "" });
  } catch {}
}

/** The outcome, exit code and signal of a leader that exited with `code` or by `signal`. */
function classify(
  reason: TerminationReason | undefined,
  code: number | null,
  signal: NodeJS.Signals | null,
): { outcome: CommandOutcome; exitCode: number | null; signal: NodeJS.Signals | null } {
  if (reason === "timeout") return { outcome: "timeout", exitCode: timeoutExitCode, signal };
  if (reason !== undefined) return { outcome: reason, exitCode: code, signal };
  if (code !== null) return { outcome: "exit", exitCode: code, signal: null };
  return { outcome: "signal", exitCode: null, signal };
}

/**
 * Waits for both streams to close, at most `waitMs`: the group is gone, so only a process
 * that left it (`setsid`) can still hold a pipe open, and it is not waited for.
 */
async function drain(streams: readonly Readable[], closed: readonly Promise<void>[], waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  await Promise.race([Promise.all(closed), late]);
  clearTimeout(timer);
  for (const stream of streams) stream.destroy();
}
