import { InvalidOptionsError } from "../../kernel/errors/errors.js";

/** The supervisor's limits; each is checked when the supervisor is created. */
export interface CommandSupervisorOptions {
  /**
   * The most bytes of a stream (stdout, stderr) one view keeps: the whole run for the final
   * result, and each poll delta. Over it, the first and last halves are kept. Default 65,536;
   * 1,024 to 16,777,216.
   */
  readonly maxOutputBytesPerStream?: number;
  /**
   * How long an `"ordinary"` command may run, from its spawn, before its group is terminated
   * with outcome `timeout`, whether or not anyone is waiting. Default 120,000 ms; 1 to
   * 2,147,483,647 (the longest timer Node keeps).
   */
  readonly executionTimeoutMs?: number;
  /** How long a group has between SIGTERM and SIGKILL. Default 2,000 ms; 0 to 60,000. */
  readonly killGraceMs?: number;
  /** The most live commands one owner may have at once. Default 16; 1 to 1,024. */
  readonly maxLiveCommands?: number;
}

/** The options with defaults applied. */
export type CommandSupervisorLimits = Required<CommandSupervisorOptions>;

/** Each option's default and its inclusive range. */
const ranges = {
  maxOutputBytesPerStream: { default: 65_536, min: 1_024, max: 16_777_216, unit: "bytes" },
  executionTimeoutMs: { default: 120_000, min: 1, max: 2_147_483_647, unit: "milliseconds" },
  killGraceMs: { default: 2_000, min: 0, max: 60_000, unit: "milliseconds" },
  maxLiveCommands: { default: 16, min: 1, max: 1_024, unit: "commands" },
} as const;

/** The longest wait a timer can express; a longer one would fire at once. */
export const maxTimerMs = 2_147_483_647;

/** Applies the defaults; throws `invalid_options` naming a field that is unknown or out of range. */
export function resolveSupervisorOptions(options: CommandSupervisorOptions | undefined): CommandSupervisorLimits {
  if (options === undefined) options = {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new InvalidOptionsError("The command supervisor's options must be an object.");
  }
  const known = Object.keys(ranges);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new InvalidOptionsError(`${key} is not a command supervisor option; the options are ${known.join(", ")}.`);
    }
  }
  const limits: Record<string, number> = {};
  for (const [key, range] of Object.entries(ranges)) {
    const value = (options as Record<string, unknown>)[key] ?? range.default;
    checkInteger(value, key, range.min, range.max, range.unit);
    limits[key] = value as number;
  }
  return Object.freeze(limits) as CommandSupervisorLimits;
}

/** Throws `invalid_options` unless `value` is an integer in [min, max]. */
export function checkInteger(value: unknown, field: string, min: number, max: number, unit: string): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionsError(
      `${field} must be an integer of ${unit} from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}; got ${JSON.stringify(value)}.`,
    );
  }
}
