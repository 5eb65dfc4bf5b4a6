import { CastellanError, errorMessage } from "@castellan/harness";

/** An owner already has `maxLiveCommands` live commands; nothing was spawned. */
export class CommandLimitError extends CastellanError {
  /** The owner refused. */
  readonly ownerKey: string;
  /** The supervisor's `maxLiveCommands`. */
  readonly limit: number;

  constructor(ownerKey: string, limit: number) {
    super(
      "command_limit_reached",
      `${JSON.stringify(ownerKey)} already has ${limit} live commands, the most allowed; stop one or wait for one to end.`,
    );
    this.ownerKey = ownerKey;
    this.limit = limit;
  }
}

/** No command has this id: it never existed, or it was released (or its owner killed). */
export class CommandNotFoundError extends CastellanError {
  /** The id asked for. */
  readonly commandId: string;

  constructor(commandId: string) {
    super(
      "command_not_found",
      `No command ${JSON.stringify(commandId)} is known; it ended and was released, or never existed.`,
    );
    this.commandId = commandId;
  }
}

/** The process could not be started: the shell or the working directory is missing, or an argument is malformed. */
export class CommandSpawnError extends CastellanError {
  /** The shell executable that was to be spawned. */
  readonly executable: string;
  /** The working directory, as a path. */
  readonly cwd: string;

  constructor(executable: string, cwd: string, options: { cause: unknown }) {
    const reason = errorMessage(options.cause);
    super(
      "command_spawn_failed",
      `Could not start ${JSON.stringify(executable)} in ${JSON.stringify(cwd)}: ${reason}. Check that both exist.`,
      options,
    );
    this.executable = executable;
    this.cwd = cwd;
  }
}

/** The spawn's signal had already aborted; nothing was spawned. */
export class CommandAbortedError extends CastellanError {
  constructor(options?: { cause?: unknown }) {
    super("command_aborted", "The command was not started: its signal had already aborted.", options);
    this.name = "AbortError";
  }
}
