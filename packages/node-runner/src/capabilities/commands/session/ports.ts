import type { BoundedOutput, CommandOutcome } from "../../../platform/process/index.js";

/** A command's lifetime as the tools and host ports name it: `run` (ordinary, with a deadline) or `session`. */
export type CommandSessionLifetime = "run" | "session";

/**
 * A spawned command's final outcome, for hosts that persist command activity. Its output is
 * the complete bounded stdout and stderr of the whole run, independent of poll deltas. It may
 * arrive before the Tool call that launched the command completes.
 */
export interface CommandTerminalUpdate {
  readonly sessionId: string;
  /** The Run that launched the command. */
  readonly runId: string;
  /** The `exec_command` call that launched it. */
  readonly toolCallId: string;
  readonly commandId: string;
  /** The command text, as spawned. */
  readonly command: string;
  readonly lifetime: CommandSessionLifetime;
  readonly outcome: CommandOutcome;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: BoundedOutput;
  readonly stderr: BoundedOutput;
  /** ISO 8601. */
  readonly startedAt: string;
  /** ISO 8601. */
  readonly endedAt: string;
}

/** What `readTerminal` is asked: one handle of one Session. */
export interface CommandTerminalRequest {
  readonly sessionId: string;
  readonly commandId: string;
}

/** A live `lifetime: "session"` command, as `sessionCommands` lists it. */
export interface SessionCommand {
  readonly commandId: string;
  readonly command: string;
  /** The Run that launched it. */
  readonly runId: string;
  /** The `exec_command` call that launched it. */
  readonly toolCallId: string;
  /** ISO 8601. */
  readonly startedAt: string;
  /** The bounded output since launch (not a poll delta; listing consumes nothing). */
  readonly stdout: BoundedOutput;
  readonly stderr: BoundedOutput;
}

/** What `onSessionCommandsChanged` is told: the Session whose session-lifetime commands changed. */
export interface SessionCommandsChange {
  readonly sessionId: string;
}

/** The host's optional ports. Each may be sync or async; what one throws is reported when the Session closes. */
export interface CommandSessionPorts {
  /**
   * Called once with each spawned command's final outcome (also for one cancelled before its
   * first yield). Session close waits for every call under way; failures make close reject
   * with `command_observer_failed`.
   */
  readonly onTerminalUpdate?: (update: CommandTerminalUpdate) => void | Promise<void>;
  /**
   * The host's store of ended commands: asked when `command_session` is given a handle whose
   * live record was released. Must scope the lookup to `sessionId` exactly and return
   * undefined for unknown or foreign handles. Repeated reads return the same receipt.
   */
  readonly readTerminal?: (
    request: CommandTerminalRequest,
  ) => CommandTerminalUpdate | undefined | Promise<CommandTerminalUpdate | undefined>;
  /** Called when a `lifetime: "session"` command starts, and after one ends, so a host can refresh its list. */
  readonly onSessionCommandsChanged?: (change: SessionCommandsChange) => void | Promise<void>;
}
