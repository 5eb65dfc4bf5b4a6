import { isToolInputError, type ToolOutput } from "@castellan/harness";
import type { BoundedOutput, CommandInfo, CommandOutcome, CommandResult } from "../../../platform/process/index.js";
import type { CommandSessionLifetime, CommandTerminalUpdate } from "./ports.js";

/** One stream of a report: only this report's delta, with what was dropped from its middle. */
export interface CommandReportStream {
  readonly text: string;
  /** Every byte of the span, kept or dropped. */
  readonly bytes: number;
  /** Bytes dropped between the kept first and last halves; 0 when the span fit the bound. */
  readonly droppedBytes: number;
}

/**
 * What every `exec_command` and `command_session` result holds, as the JSON text of its one
 * text block. `running` means the process still lives after the call returned; a `terminal`
 * report says how it ended. A non-zero exit is data, not an error.
 */
export interface CommandSessionReport {
  readonly type: "command-session-report";
  /** Stable from the first call on. */
  readonly commandId: string;
  readonly state: "running" | "terminal";
  /** How it ended; only on a terminal report. */
  readonly outcome?: CommandOutcome;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lifetime: CommandSessionLifetime;
  /** When an ordinary command's execution deadline falls (ISO 8601); null for a session command or a stored receipt. */
  readonly deadline: string | null;
  readonly stdout: CommandReportStream;
  readonly stderr: CommandReportStream;
}

/** The report of a live record: `output` is the delta just read, `result` the end once there is one. */
export function liveReport(
  info: CommandInfo,
  output: { readonly stdout: BoundedOutput; readonly stderr: BoundedOutput },
  result: CommandResult | undefined,
): CommandSessionReport {
  return {
    type: "command-session-report",
    commandId: info.commandId,
    state: result ? "terminal" : "running",
    ...(result ? { outcome: result.outcome } : {}),
    exitCode: result?.exitCode ?? null,
    signal: result?.signal ?? null,
    lifetime: info.lifetime === "session" ? "session" : "run",
    deadline: info.deadlineAt,
    stdout: stream(output.stdout),
    stderr: stream(output.stderr),
  };
}

/** The report of a receipt read back from the host's store: its complete bounded output, not a delta. */
export function receiptReport(receipt: CommandTerminalUpdate): CommandSessionReport {
  return {
    type: "command-session-report",
    commandId: receipt.commandId,
    state: "terminal",
    outcome: receipt.outcome,
    exitCode: receipt.exitCode,
    signal: receipt.signal,
    lifetime: receipt.lifetime,
    // A receipt does not keep the deadline the command had.
    deadline: null,
    stdout: stream(receipt.stdout),
    stderr: stream(receipt.stderr),
  };
}

/** The tool result holding `report`: one text block, never an error. */
export function reportOutput(report: CommandSessionReport): ToolOutput {
  return { content: [{ type: "text", text: JSON.stringify(report) }], isError: false };
}

/**
 * Runs a tool's work and gives its report; a `ToolInputError` thrown after admission (a
 * directory that changed, a released handle) becomes an error result starting with its code,
 * as a refusal by `admit` does. Anything else propagates (a host error, an abort).
 */
export async function reportOrRefusal(work: () => Promise<CommandSessionReport>): Promise<ToolOutput> {
  try {
    return reportOutput(await work());
  } catch (error) {
    if (isToolInputError(error)) return { content: error.resultText, isError: true };
    throw error;
  }
}

function stream(output: BoundedOutput): CommandReportStream {
  return { text: output.text, bytes: output.bytes, droppedBytes: output.droppedBytes };
}
