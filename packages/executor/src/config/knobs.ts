import { ExecutorConfigError } from "../errors/errors.js";

/** The integer knobs of a server: each an option, and an environment variable the option beats. */
export interface ExecutorKnobs {
  /** `PORT`: where the server listens. Default 27182; 0 picks a free port. */
  readonly port: number;
  /** `CASTELLAN_EXECUTOR_MAX_JOBS`: jobs running at once; later ones wait `queued`. Default 4; at least 1. */
  readonly maxConcurrentJobs: number;
  /** `JOB_MAX_DURATION_MS`: a job's wall-time ceiling from its start (the queue excluded). Default 3,600,000. */
  readonly jobMaxDurationMs: number;
  /** `JOB_INACTIVITY_MS`: no activity this long kills the job. Default 600,000. */
  readonly jobInactivityMs: number;
  /** `JOB_TOOL_SILENCE_MS`: activity but no completed tool call this long, in an agent pass. Default half the ceiling; 0 disables. */
  readonly jobToolSilenceMs: number;
  /** `JOB_MAX_CONSECUTIVE_MCP_CALLS`: consecutive MCP tool calls that count as a loop. Default 40. */
  readonly maxConsecutiveMcpCalls: number;
  /** `JOB_MAX_CONSECUTIVE_WEB_CALLS`: consecutive web searches that count as a loop. Default 20. */
  readonly maxConsecutiveWebCalls: number;
  /** `JOB_MAX_CONSECUTIVE_NON_ACTION_CALLS`: consecutive calls of any no-edit-exempt family. Default 200. */
  readonly maxConsecutiveNonActionCalls: number;
  /** `JOB_NO_EDIT_CALL_LIMIT`: action calls in a pass without an edit before the tree is probed. Default 60. */
  readonly noEditCallLimit: number;
  /** `JOB_COLD_START_MS`: no model output this long after the first pass began records a diagnostic. Default 120,000; 0 disables. */
  readonly jobColdStartMs: number;
  /** `JOB_CHECKPOINT_INTERVAL_MS`: how often a running job's work is checkpointed. Default 60,000. */
  readonly checkpointIntervalMs: number;
  /** `DEPENDENCY_INSTALL_TIMEOUT_MS`: default a third of the ceiling, and never more than that third. */
  readonly dependencyInstallTimeoutMs: number;
  /** `DEPENDENCY_INSTALL_HEARTBEAT_MS`. Default 30,000. */
  readonly dependencyInstallHeartbeatMs: number;
  /** `VALIDATION_COMMAND_TIMEOUT_MS`. Default 900,000. */
  readonly validationCommandTimeoutMs: number;
  /** `REPRODUCTION_COMMAND_TIMEOUT_MS`. Default 900,000. */
  readonly reproductionCommandTimeoutMs: number;
  /** `REPRODUCTION_HEARTBEAT_MS`. Default 30,000. */
  readonly reproductionHeartbeatMs: number;
  /** `REPRODUCTION_TOTAL_BUDGET_MS`. Default 2,700,000. */
  readonly reproductionTotalBudgetMs: number;
  /** `HARNESS_TRANSCRIPT_TTL_MS`: how long a finished job's records and transcripts are kept. Default 259,200,000 (3 days). */
  readonly transcriptTtlMs: number;
  /** `HARNESS_DOCKER_READY_TIMEOUT_SECONDS`: the budget of the boot-time sandbox check. Default 60. */
  readonly sandboxReadyTimeoutSeconds: number;
  /**
   * `CASTELLAN_EXECUTOR_JOB_NICENESS`: the niceness the jobs' commands and sandbox workers run
   * at, so under a full CPU the server's own loop (polls, watchdogs) is served first. Default
   * 10; 0 to 19.
   */
  readonly jobNiceness: number;
}

type Derived = (known: Partial<Record<keyof ExecutorKnobs, number>>) => number;

interface Knob {
  readonly option: keyof ExecutorKnobs;
  readonly variable: string;
  readonly fallback: number | Derived;
  readonly min?: number;
  readonly max?: number;
}

// In resolution order: a derived default reads only knobs above it.
const knobs: readonly Knob[] = [
  { option: "port", variable: "PORT", fallback: 27_182, max: 65_535 },
  { option: "maxConcurrentJobs", variable: "CASTELLAN_EXECUTOR_MAX_JOBS", fallback: 4, min: 1 },
  { option: "jobMaxDurationMs", variable: "JOB_MAX_DURATION_MS", fallback: 3_600_000, min: 1 },
  { option: "jobInactivityMs", variable: "JOB_INACTIVITY_MS", fallback: 600_000, min: 1 },
  {
    option: "jobToolSilenceMs",
    variable: "JOB_TOOL_SILENCE_MS",
    fallback: (known) => Math.floor((known.jobMaxDurationMs as number) / 2),
  },
  { option: "maxConsecutiveMcpCalls", variable: "JOB_MAX_CONSECUTIVE_MCP_CALLS", fallback: 40, min: 1 },
  { option: "maxConsecutiveWebCalls", variable: "JOB_MAX_CONSECUTIVE_WEB_CALLS", fallback: 20, min: 1 },
  { option: "maxConsecutiveNonActionCalls", variable: "JOB_MAX_CONSECUTIVE_NON_ACTION_CALLS", fallback: 200, min: 1 },
  { option: "noEditCallLimit", variable: "JOB_NO_EDIT_CALL_LIMIT", fallback: 60, min: 1 },
  { option: "jobColdStartMs", variable: "JOB_COLD_START_MS", fallback: 120_000 },
  { option: "checkpointIntervalMs", variable: "JOB_CHECKPOINT_INTERVAL_MS", fallback: 60_000, min: 1 },
  {
    option: "dependencyInstallTimeoutMs",
    variable: "DEPENDENCY_INSTALL_TIMEOUT_MS",
    fallback: (known) => Math.floor((known.jobMaxDurationMs as number) / 3),
  },
  { option: "dependencyInstallHeartbeatMs", variable: "DEPENDENCY_INSTALL_HEARTBEAT_MS", fallback: 30_000, min: 1 },
  { option: "validationCommandTimeoutMs", variable: "VALIDATION_COMMAND_TIMEOUT_MS", fallback: 900_000, min: 1 },
  { option: "reproductionCommandTimeoutMs", variable: "REPRODUCTION_COMMAND_TIMEOUT_MS", fallback: 900_000, min: 1 },
  { option: "reproductionHeartbeatMs", variable: "REPRODUCTION_HEARTBEAT_MS", fallback: 30_000, min: 1 },
  { option: "reproductionTotalBudgetMs", variable: "REPRODUCTION_TOTAL_BUDGET_MS", fallback: 2_700_000, min: 1 },
  { option: "transcriptTtlMs", variable: "HARNESS_TRANSCRIPT_TTL_MS", fallback: 259_200_000 },
  { option: "sandboxReadyTimeoutSeconds", variable: "HARNESS_DOCKER_READY_TIMEOUT_SECONDS", fallback: 60, min: 1 },
  { option: "jobNiceness", variable: "CASTELLAN_EXECUTOR_JOB_NICENESS", fallback: 10, max: 19 },
];

/** The environment variable of every integer knob, by option. */
export const knobVariables: Readonly<Record<keyof ExecutorKnobs, string>> = Object.freeze(
  Object.fromEntries(knobs.map((knob) => [knob.option, knob.variable])) as Record<keyof ExecutorKnobs, string>,
);

function checked(value: number, knob: Knob, named: string): number {
  const min = knob.min ?? 0;
  if (!Number.isSafeInteger(value) || value < min || (knob.max !== undefined && value > knob.max)) {
    const range =
      knob.max !== undefined
        ? `${min} to ${knob.max}`
        : min === 0
          ? "a non-negative integer"
          : `an integer of at least ${min}`;
    throw new ExecutorConfigError(named, `${named} must be ${range}.`);
  }
  return value;
}

/**
 * Every integer knob: the option when given, else its environment variable (decimal digits
 * only), else its default. A value that is not a non-negative integer in its range is an
 * `ExecutorConfigError` naming the option or the variable (never the value).
 */
export function resolveKnobs(
  options: Partial<Record<keyof ExecutorKnobs, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): ExecutorKnobs {
  const known: Partial<Record<keyof ExecutorKnobs, number>> = {};
  for (const knob of knobs) {
    const given = options[knob.option];
    const raw = env[knob.variable];
    let value: number;
    if (given !== undefined) {
      value = checked(typeof given === "number" ? given : Number.NaN, knob, knob.option);
    } else if (raw !== undefined && raw.trim() !== "") {
      const text = raw.trim();
      value = checked(/^\d+$/.test(text) ? Number(text) : Number.NaN, knob, knob.variable);
    } else {
      value = typeof knob.fallback === "number" ? knob.fallback : knob.fallback(known);
    }
    known[knob.option] = value;
  }
  // Setup never takes the run it prepares for: an explicit install timeout is clamped to a third of the ceiling.
  const third = Math.floor((known.jobMaxDurationMs as number) / 3);
  known.dependencyInstallTimeoutMs = Math.min(known.dependencyInstallTimeoutMs as number, third);
  return Object.freeze(known as ExecutorKnobs);
}
