import type { CommandShell } from "../../../platform/process/index.js";
import type { ResolvedCommandRuntimeLimits } from "./command-runtime.js";
import { CommandOptionsError } from "./errors.js";

/** An integer option within its bounds, or `fallback` when absent; `command_options_invalid` otherwise. */
export function checkedInteger(
  where: string,
  value: unknown,
  field: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const given = value ?? fallback;
  if (typeof given !== "number" || !Number.isInteger(given) || given < min || given > max) {
    throw new CommandOptionsError(
      `${where}: ${field} must be an integer from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}; got ${JSON.stringify(value)}.`,
    );
  }
  return given;
}

/** The shell option checked and frozen; default `/bin/sh -c`. */
export function checkShell(shell: unknown, where: string): CommandShell {
  if (shell === undefined) return Object.freeze({ executable: "/bin/sh", arguments: Object.freeze(["-c"]) });
  const candidate = shell as Partial<CommandShell> | null;
  if (
    candidate === null ||
    typeof candidate !== "object" ||
    typeof candidate.executable !== "string" ||
    candidate.executable === "" ||
    !Array.isArray(candidate.arguments) ||
    !candidate.arguments.every((argument) => typeof argument === "string")
  ) {
    throw new CommandOptionsError(`${where}: shell must be { executable: a non-empty string, arguments: strings }.`);
  }
  return Object.freeze({ executable: candidate.executable, arguments: Object.freeze([...candidate.arguments]) });
}

/** The four supervisor limits checked, defaults applied; `where` names the caller in errors. */
export function resolveCommandLimits(
  given: {
    readonly executionTimeoutMs?: unknown;
    readonly maxOutputBytesPerStream?: unknown;
    readonly killGraceMs?: unknown;
    readonly maxLiveCommands?: unknown;
  },
  where: string,
  prefix = "",
): ResolvedCommandRuntimeLimits {
  return Object.freeze({
    executionTimeoutMs: checkedInteger(
      where,
      given.executionTimeoutMs,
      `${prefix}executionTimeoutMs`,
      120_000,
      1,
      2_147_483_647,
    ),
    maxOutputBytesPerStream: checkedInteger(
      where,
      given.maxOutputBytesPerStream,
      `${prefix}maxOutputBytesPerStream`,
      65_536,
      1_024,
      16_777_216,
    ),
    killGraceMs: checkedInteger(where, given.killGraceMs, `${prefix}killGraceMs`, 2_000, 0, 60_000),
    maxLiveCommands: checkedInteger(where, given.maxLiveCommands, `${prefix}maxLiveCommands`, 16, 1, 1_024),
  });
}
