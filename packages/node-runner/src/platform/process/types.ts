import type { BoundedOutput } from "./output-capture.js";

/**
 * How long a command may live. `"ordinary"` ends at the supervisor's `executionTimeoutMs`;
 * `"session"` (a dev server, a watcher) has no execution timer and lives until it exits, is
 * stopped, or its owner goes away.
 */
export type CommandLifetime = "ordinary" | "session";

/**
 * How a command ended: `exit` (it exited by itself; `exitCode` is its code), `timeout` (its
 * execution deadline passed; `exitCode` 124), `stop` ({@link CommandSupervisor.stop}),
 * `signal` (a signal from elsewhere killed it; `exitCode` null), `cleanup` (its owner went
 * away: the spawn's signal aborted, or {@link CommandSupervisor.killOwner}).
 */
export type CommandOutcome = "exit" | "timeout" | "stop" | "signal" | "cleanup";

/** The `exitCode` of a command that reached its execution deadline, as `timeout(1)` reports it. */
export const timeoutExitCode = 124;

/** The program a command text is given to: spawned as `[executable, ...arguments, command]`. */
export interface CommandShell {
  /** An absolute path, or a name looked up in the `PATH` of the command's `env`, e.g. `"/bin/sh"`. */
  readonly executable: string;
  /** What comes between the executable and the command text, e.g. `["-c"]`. */
  readonly arguments: readonly string[];
}

/** A command's stdout and stderr, each bounded on its own. */
export interface CommandOutput {
  /** Standard output, bounded. */
  readonly stdout: BoundedOutput;
  /** Standard error, bounded. */
  readonly stderr: BoundedOutput;
}

/**
 * How a command ended, with its whole-run bounded output (the first and last halves of each
 * stream, never a poll delta). A non-zero exit is data, not an error. Times are ISO 8601 UTC
 * strings (`Date.prototype.toISOString`), so a result can be stored as JSON unchanged.
 */
export interface CommandResult extends CommandOutput {
  /** The command's id, as `spawn` returned it. */
  readonly commandId: string;
  /** How it ended. */
  readonly outcome: CommandOutcome;
  /**
   * The leader's exit code: its own for `exit`, 124 for `timeout`, null for `signal`; for
   * `stop` and `cleanup` its code if it exited by itself on SIGTERM, else null.
   */
  readonly exitCode: number | null;
  /** The signal that ended the leader (`"SIGTERM"`, `"SIGKILL"`, ...), or null when it exited. */
  readonly signal: NodeJS.Signals | null;
  /** When the process was spawned. */
  readonly startedAt: string;
  /** When the command was seen to end: its whole process group gone and its output read to the end. */
  readonly endedAt: string;
  /**
   * What the spawn layer's `finalize` threw (a sandbox that could not annotate the end), when
   * it failed: the command ran, but its report may lack the layer's denials. Absent otherwise.
   */
  readonly layerError?: unknown;
}

/** What to spawn, for whom, and how to report its end. The argv and env are final: nothing is added. */
export interface CommandSpawnRequest {
  /** Whose command this is (the Runner Session id): listed, limited and killed together. Non-empty. */
  readonly ownerKey: string;
  /** The command text, given to the shell as its last argument. */
  readonly command: string;
  /** The shell and its arguments; callers normally pass `{ executable: "/bin/sh", arguments: ["-c"] }`. */
  readonly shell: CommandShell;
  /** The working directory: an absolute path or a `file:` URL. It must exist; it is not a sandbox. */
  readonly cwd: string | URL;
  /** The command's whole environment; nothing of this process's environment is added. */
  readonly env: Readonly<Record<string, string>>;
  /** Default `"ordinary"`: ended at the execution deadline. */
  readonly lifetime?: CommandLifetime;
  /**
   * While the command lives, aborting this signal kills its group with outcome `cleanup`. A
   * signal already aborted refuses the spawn (`command_aborted`).
   */
  readonly signal?: AbortSignal;
  /**
   * Called once, when the command has ended, with its result (the complete bounded output),
   * before anyone awaiting the end resumes. Not awaited: what it throws or rejects with is
   * collected for {@link CommandSupervisor.drainObservers}.
   */
  readonly onTerminal?: (result: CommandResult) => void | Promise<void>;
  /**
   * A layer (a sandbox) that turns the command into its final argv and env immediately before
   * the spawn, and may add to its stderr after its group is gone. It only transforms: the
   * supervisor still owns the spawn, the group, the output, the deadline, abort and stop.
   */
  readonly layer?: CommandSpawnLayer;
  /** This command's deadline, replacing the supervisor's `executionTimeoutMs` (an ordinary command only). Default: the supervisor's. */
  readonly executionTimeoutMs?: number;
  /** This command's bound per stream, replacing the supervisor's `maxOutputBytesPerStream`. Default: the supervisor's. */
  readonly maxOutputBytesPerStream?: number;
  /**
   * Called with each chunk of output as it is read, decoded as UTF-8 (a character split
   * across chunks arrives whole with the later one). For live progress only: what it throws is
   * ignored, and the bounded capture is the record. Default: none.
   */
  readonly onOutput?: (chunk: CommandOutputChunk) => void;
}

/** One piece of live output. */
export interface CommandOutputChunk {
  readonly stream: "stdout" | "stderr";
  readonly text: string;
}

/** What {@link CommandSpawnLayer.prepare} is given: the command as it would otherwise be spawned. */
export interface CommandPrepareRequest {
  /** The id the command will have. */
  readonly commandId: string;
  readonly command: string;
  readonly shell: CommandShell;
  /** The absolute working directory. */
  readonly cwd: string;
  /** The command's whole environment (the policy's). */
  readonly env: Readonly<Record<string, string>>;
}

/** Rewrites a command into its final argv and env before spawn, and annotates its stderr after its end. */
export interface CommandSpawnLayer {
  /**
   * The final argv (`argv[0]` an absolute path, or a name looked up in the returned env's
   * `PATH`) and the whole environment to spawn with. A throw or rejection refuses the spawn
   * (`command_spawn_failed`); nothing is spawned.
   */
  prepare(request: CommandPrepareRequest): Promise<CommandPreparedSpawn> | CommandPreparedSpawn;
  /**
   * Awaited once the group is gone and the output read, before the result is made: given the
   * whole bounded stderr text, returns it with anything appended (what follows the given text
   * becomes the end of the stream). A throw or a text that does not start with the given one
   * adds nothing. Also called (with empty stderr, its answer unused) for a prepared command
   * whose spawn failed, so a layer releases what it holds per command.
   */
  finalize?(request: {
    readonly commandId: string;
    readonly command: string;
    readonly stderr: string;
  }): Promise<string> | string;
}

/** What {@link CommandSpawnLayer.prepare} returns. */
export interface CommandPreparedSpawn {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /**
   * The descriptor (3 to 8) on which the spawned program reports the init of the PID namespace
   * it makes, as bubblewrap's `--info-fd` does (a JSON object with `"child-pid": N`). The
   * supervisor opens a pipe there, reads the report (4 KiB of it at most), and SIGKILLs that
   * process whenever it ends the command, which ends every process of the namespace, also
   * when the report arrives after the command's group was already ended. Only a program the
   * layer trusts may write there: the pid it names is killed. Default: none.
   */
  readonly pidNamespaceReportFd?: number;
}

/** A command as the registry knows it now. */
export interface CommandInfo {
  /** Opaque and stable: `cmd_` and 24 hex digits, never reused. */
  readonly commandId: string;
  /** Whose command it is, as spawned. */
  readonly ownerKey: string;
  /** The command text, as spawned. */
  readonly command: string;
  /** As spawned (default `"ordinary"`). */
  readonly lifetime: CommandLifetime;
  /** The process group's id, which is the leader's pid. */
  readonly processGroupId: number;
  /** When the process was spawned (ISO 8601). */
  readonly startedAt: string;
  /** When the execution deadline falls (ISO 8601), or null for a `"session"` command. */
  readonly deadlineAt: string | null;
  /** `running` until the whole group is gone and the output is read to its end. */
  readonly state: "running" | "ended";
  /** The result once `ended`. */
  readonly result: CommandResult | undefined;
}

/** What is new in each stream since the previous read, each bounded on its own. */
export interface CommandDelta extends CommandOutput {
  /** The command read. */
  readonly commandId: string;
  /**
   * The result when the command has ended; this delta then holds the last of its output.
   * Undefined while it runs.
   */
  readonly result: CommandResult | undefined;
}

/** How long {@link CommandSupervisor.waitFor} waits, and what else ends the wait. */
export interface CommandWaitOptions {
  /** How long to wait at most, in milliseconds from the call (a duration, not a time); 0 to 2,147,483,647. */
  readonly untilMs: number;
  /** Also return as soon as either stream has output not yet read by a delta (at once if it already has). Default false. */
  readonly untilOutput?: boolean;
  /** Return early when this aborts (the command is not touched). */
  readonly signal?: AbortSignal;
}

/** Why a wait returned: the command ended, or it still runs and the deadline, output or the signal came first. */
export type CommandWaitResult =
  | { readonly state: "ended"; readonly result: CommandResult }
  | { readonly state: "running"; readonly wokenBy: "deadline" | "output" | "signal" };

/** An `onTerminal` observer that threw or rejected. */
export interface CommandObserverFailure {
  /** The command whose observer failed. */
  readonly commandId: string;
  /** Its owner. */
  readonly ownerKey: string;
  /** What the observer threw or rejected with. */
  readonly error: unknown;
}
