import type { CommandRuntime } from "@castellan/node-runner";
import { runServerCommand } from "../commands/server-command.js";

/** The bytes of a check's output a report keeps: the last 32 KiB, after scrubbing. */
export const validationTailBytes = 32_768;

/** One check of a validation round. */
export interface ValidationCheck {
  readonly name: string;
  /** 0 passed; 124 timed out, 127 not found (or not started), 130 aborted; else the command's own. */
  readonly exitCode: number;
  readonly durationMs: number;
  /** The interleaved output, scrubbed, then cut to its last 32 KiB. */
  readonly outputTail: string;
  readonly truncated: boolean;
  /** Bytes cut from the start of the output. */
  readonly droppedBytes: number;
}

/** The validation report of a job: every round, the last one deciding `passed`. */
export interface ValidationReport {
  readonly passed: boolean;
  readonly rounds: readonly { readonly checks: readonly ValidationCheck[] }[];
}

/**
 * One validation round: the body's commands in order at the checkout root, each a sandboxed
 * `/bin/sh -c` with the job's environment and network within `timeoutMs`, stopping at the
 * first that fails. Resolves with the checks that ran; the last is the failing one, if any.
 */
export async function runValidationRound(options: {
  /** The job's command runtime on the checkout. */
  readonly runtime: CommandRuntime;
  readonly commands: readonly { readonly name: string; readonly command: string }[];
  readonly timeoutMs: number;
  readonly onHeartbeat: () => void;
  readonly heartbeatMs: number;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
}): Promise<ValidationCheck[]> {
  const checks: ValidationCheck[] = [];
  for (const { name, command } of options.commands) {
    const result = await runServerCommand(options.runtime, {
      command,
      timeoutMs: options.timeoutMs,
      heartbeatMs: options.heartbeatMs,
      onHeartbeat: options.onHeartbeat,
      tailBytes: validationTailBytes,
      scrub: options.scrub,
      signal: options.signal,
    });
    options.signal.throwIfAborted();
    checks.push({
      name,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      outputTail: result.output,
      truncated: result.truncated,
      droppedBytes: result.droppedBytes,
    });
    options.onHeartbeat();
    if (result.exitCode !== 0) break;
  }
  return checks;
}

/** Whether a round passed: every command ran and exited 0. */
export function roundPassed(checks: readonly ValidationCheck[], commands: number): boolean {
  return checks.length === commands && checks.every((check) => check.exitCode === 0);
}

/** The repair pass's brief for a failed check: the command and its output. */
export function validationRepairNote(check: ValidationCheck, command: string, passesLeft: number): string {
  return [
    "## Validation failed",
    `The server ran the project's check "${check.name}" after your last pass and it failed with exit code ${check.exitCode}:`,
    "```sh",
    command.replace(/```/g, "'''"),
    "```",
    `Its output${check.truncated ? ` (the last 32 KiB; ${check.droppedBytes} bytes before it left out)` : ""}:`,
    "```text",
    check.outputTail.replace(/```/g, "'''").trimEnd(),
    "```",
    `Fix the cause in the code and commit the fix. ${passesLeft} repair pass${passesLeft === 1 ? "" : "es"} remain${passesLeft === 1 ? "s" : ""} after this one.`,
  ].join("\n");
}
