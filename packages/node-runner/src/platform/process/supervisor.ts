import type { SupervisedCommand } from "./command.js";
import { CommandAbortedError, CommandLimitError, CommandNotFoundError } from "./errors.js";
import { ObserverLedger } from "./observers.js";
import { type CommandSupervisorLimits, type CommandSupervisorOptions, resolveSupervisorOptions } from "./options.js";
import { checkOwnerKey, checkSpawnRequest, checkWaitOptions } from "./request.js";
import type {
  CommandDelta,
  CommandInfo,
  CommandObserverFailure,
  CommandOutput,
  CommandResult,
  CommandSpawnRequest,
  CommandWaitOptions,
  CommandWaitResult,
} from "./types.js";

/**
 * Spawns commands and owns their process groups, in memory, per owner (a Runner Session).
 * POSIX only, no PTY. Ids are opaque (`cmd_` and 24 hex digits) and never reused. A record
 * stays after its command ends, for its last delta and its result, until {@link release} or
 * {@link killOwner}. Methods given an unknown id throw `CommandNotFoundError`.
 */
export interface CommandSupervisor {
  /** The limits in force, defaults applied. */
  readonly limits: CommandSupervisorLimits;
  /**
   * Spawns `[shell.executable, ...shell.arguments, command]` as the leader of a new process
   * group, with stdin from /dev/null and exactly `env`; resolves once the process has started.
   * Throws `CommandLimitError` when the owner has `maxLiveCommands` live commands,
   * `CommandAbortedError` when `signal` has aborted, `CommandSpawnError` when it cannot start.
   */
  spawn(request: CommandSpawnRequest): Promise<CommandInfo>;
  /** Throws `CommandLimitError` when `ownerKey` may not spawn another command now (admission's check; spawn checks again). */
  checkCanSpawn(ownerKey: string): void;
  /** How many commands of `ownerKey` are live: starting, running, or being terminated. */
  liveCount(ownerKey: string): number;
  /** The command's record now, or undefined for an unknown id. */
  get(commandId: string): CommandInfo | undefined;
  /** Every record of `ownerKey` (live and ended, not released), oldest first. */
  list(ownerKey: string): readonly CommandInfo[];
  /** Every owner key with a record or a spawn under way. */
  owners(): readonly string[];
  /**
   * Resolves when the command ends or after `untilMs`, whichever is first; with
   * `untilOutput`, also as soon as it has unread output. Waiting changes nothing.
   */
  waitFor(commandId: string, options: CommandWaitOptions): Promise<CommandWaitResult>;
  /** What is new in each stream since the previous delta (bounded per stream), and the result once ended. */
  readDelta(commandId: string): CommandDelta;
  /** The whole run's bounded output so far; consumes nothing. Once ended, the result's output. */
  readOutput(commandId: string): CommandOutput;
  /**
   * SIGTERM to the group, SIGKILL after `killGraceMs`; resolves with the result once the whole
   * group is gone (outcome `stop`). A command whose leader has already exited keeps its
   * outcome; one that has ended is not signalled again and its result is returned.
   */
  stop(commandId: string): Promise<CommandResult>;
  /**
   * Terminates every live command of `ownerKey` (outcome `cleanup`), including one whose spawn
   * is under way, and resolves once every group is gone, with the result of each of the
   * owner's commands, oldest first. The owner's records are released.
   */
  killOwner(ownerKey: string): Promise<readonly CommandResult[]>;
  /** Forgets an ended command's record; false when the id is unknown or the command still lives. */
  release(commandId: string): boolean;
  /**
   * Waits for every `onTerminal` call under way (of `ownerKey`, or of every owner), then
   * returns the failures not yet drained and forgets them.
   */
  drainObservers(ownerKey?: string): Promise<readonly CommandObserverFailure[]>;
}

/** A supervisor with `options`' limits; throws `invalid_options` when one is unknown or out of range. */
export function createCommandSupervisor(options?: CommandSupervisorOptions): CommandSupervisor {
  return new Supervisor(resolveSupervisorOptions(options));
}

class Supervisor implements CommandSupervisor {
  readonly limits: CommandSupervisorLimits;
  readonly #commands = new Map<string, SupervisedCommand>();
  /** Spawns under way, by owner: counted as live so two at once cannot pass the limit. */
  readonly #starting = new Map<string, Set<Promise<unknown>>>();
  readonly #observers = new ObserverLedger();

  constructor(limits: CommandSupervisorLimits) {
    this.limits = limits;
  }

  async spawn(request: CommandSpawnRequest): Promise<CommandInfo> {
    const checked = checkSpawnRequest(request);
    if (checked.signal?.aborted) throw new CommandAbortedError({ cause: checked.signal.reason });
    this.checkCanSpawn(checked.ownerKey);
    const onTerminal = checked.onTerminal;
    // The process code loads with the first command, not with the package.
    const starting = import("./command.js").then(({ SupervisedCommand }) =>
      SupervisedCommand.start(checked, this.limits, (command, result) => {
        if (onTerminal) this.#observers.notify(command.ownerKey, command.commandId, onTerminal, result);
      }),
    );
    const pending = this.#starting.get(checked.ownerKey) ?? new Set();
    this.#starting.set(checked.ownerKey, pending);
    pending.add(starting);
    try {
      const command = await starting;
      this.#commands.set(command.commandId, command);
      return command.info();
    } finally {
      pending.delete(starting);
      if (pending.size === 0) this.#starting.delete(checked.ownerKey);
    }
  }

  checkCanSpawn(ownerKey: string): void {
    if (this.liveCount(ownerKey) >= this.limits.maxLiveCommands) {
      throw new CommandLimitError(ownerKey, this.limits.maxLiveCommands);
    }
  }

  liveCount(ownerKey: string): number {
    checkOwnerKey(ownerKey);
    let count = this.#starting.get(ownerKey)?.size ?? 0;
    for (const command of this.#commands.values()) {
      if (command.ownerKey === ownerKey && command.result === undefined) count++;
    }
    return count;
  }

  get(commandId: string): CommandInfo | undefined {
    return this.#commands.get(commandId)?.info();
  }

  list(ownerKey: string): readonly CommandInfo[] {
    return Object.freeze(this.#ownedBy(ownerKey).map((command) => command.info()));
  }

  owners(): readonly string[] {
    const owners = new Set([...this.#commands.values()].map((command) => command.ownerKey));
    for (const ownerKey of this.#starting.keys()) owners.add(ownerKey);
    return Object.freeze([...owners]);
  }

  waitFor(commandId: string, options: CommandWaitOptions): Promise<CommandWaitResult> {
    const command = this.#require(commandId);
    const { untilMs, untilOutput = false, signal } = checkWaitOptions(options);
    const now = wakeReason(command, untilOutput, signal);
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (value: CommandWaitResult) => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      const timer = setTimeout(() => finish({ state: "running", wokenBy: "deadline" }), untilMs);
      // The end is announced to output listeners too, so one subscription serves both.
      const unsubscribe = command.onOutput(() => {
        const reason = wakeReason(command, untilOutput, undefined);
        if (reason !== undefined) finish(reason);
      });
      const onAbort = () => finish({ state: "running", wokenBy: "signal" });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  readDelta(commandId: string): CommandDelta {
    const command = this.#require(commandId);
    // Taken first: once there is a result the captures are complete, so this delta is the last.
    const result = command.result;
    return Object.freeze({
      commandId,
      stdout: command.stdout.readDelta(),
      stderr: command.stderr.readDelta(),
      result,
    });
  }

  readOutput(commandId: string): CommandOutput {
    const command = this.#require(commandId);
    const result = command.result;
    if (result) return Object.freeze({ stdout: result.stdout, stderr: result.stderr });
    return Object.freeze({ stdout: command.stdout.whole(), stderr: command.stderr.whole() });
  }

  stop(commandId: string): Promise<CommandResult> {
    return this.#require(commandId).terminate("stop");
  }

  async killOwner(ownerKey: string): Promise<readonly CommandResult[]> {
    checkOwnerKey(ownerKey);
    // Repeated until nothing is live: a spawn under way, or one begun meanwhile, is ended too.
    for (;;) {
      await Promise.allSettled([...(this.#starting.get(ownerKey) ?? [])]);
      const live = this.#ownedBy(ownerKey).filter((command) => command.result === undefined);
      if (live.length === 0 && !this.#starting.has(ownerKey)) break;
      await Promise.all(live.map((command) => command.terminate("cleanup")));
    }
    const owned = this.#ownedBy(ownerKey);
    for (const command of owned) this.#commands.delete(command.commandId);
    return Object.freeze(owned.map((command) => command.result as CommandResult));
  }

  release(commandId: string): boolean {
    const command = this.#commands.get(commandId);
    if (command?.result === undefined) return false;
    return this.#commands.delete(commandId);
  }

  drainObservers(ownerKey?: string): Promise<readonly CommandObserverFailure[]> {
    if (ownerKey !== undefined) checkOwnerKey(ownerKey);
    return this.#observers.drain(ownerKey);
  }

  #require(commandId: string): SupervisedCommand {
    const command = this.#commands.get(commandId);
    if (!command) throw new CommandNotFoundError(String(commandId));
    return command;
  }

  #ownedBy(ownerKey: string): SupervisedCommand[] {
    checkOwnerKey(ownerKey);
    return [...this.#commands.values()].filter((command) => command.ownerKey === ownerKey);
  }
}

/** Why a wait on `command` would return now, or undefined to keep waiting. */
function wakeReason(
  command: SupervisedCommand,
  untilOutput: boolean,
  signal: AbortSignal | undefined,
): CommandWaitResult | undefined {
  const result = command.result;
  if (result) return { state: "ended", result };
  if (untilOutput && (command.stdout.unreadBytes > 0 || command.stderr.unreadBytes > 0)) {
    return { state: "running", wokenBy: "output" };
  }
  if (signal?.aborted) return { state: "running", wokenBy: "signal" };
  return undefined;
}
