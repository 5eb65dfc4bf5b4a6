import {
  type EnvironmentPolicy,
  type ResolvedEnvironmentPolicy,
  resolveEnvironmentPolicy,
} from "../../../platform/environment/environment-policy.js";
import { bindWorkspaceRootSync, type WorkspaceRoot } from "../../../platform/paths/root.js";
import type { CommandShell } from "../../../platform/process/index.js";
import { CommandOptionsError } from "../runtime/errors.js";
import { checkedInteger, checkShell, resolveCommandLimits } from "../runtime/settings.js";
import type { CommandSessionPorts } from "./ports.js";

/** Options of `createCommandSessionPlugin`; all are checked when the plugin is created. */
export interface CommandSessionOptions extends CommandSessionPorts {
  /**
   * A `file:` URL (or its text) of an existing directory: where commands run, and what
   * `workdir` is resolved beneath. Captured by its real path now. It is not a sandbox.
   */
  readonly workingDirectory: URL | string;
  /** The program command text is given to. Default `{ executable: "/bin/sh", arguments: ["-c"] }`. */
  readonly shell?: CommandShell;
  /** Which variables of the host's environment commands get; computed from `process.env` at each spawn. Required. */
  readonly environment: EnvironmentPolicy;
  /** How long an ordinary command may run from its spawn (then `timeout`, exit code 124). Default 120,000 ms; 1 to 2,147,483,647. */
  readonly executionTimeoutMs?: number;
  /** How long `exec_command` waits before returning a running handle. Default 10,000 ms; 0 to `executionTimeoutMs`. */
  readonly initialYieldMs?: number;
  /** How long a `poll` waits for new output or the end. Default 1,000 ms; 0 to 60,000. */
  readonly pollWaitMs?: number;
  /** The most bytes of each stream one report (and the whole-run output) keeps. Default 65,536; 1,024 to 16,777,216. */
  readonly maxOutputBytesPerStream?: number;
  /** How long a group has between SIGTERM and SIGKILL. Default 2,000 ms; 0 to 60,000. */
  readonly killGraceMs?: number;
  /** The most live commands one Session may have at once. Default 16; 1 to 1,024. */
  readonly maxLiveCommands?: number;
}

/** The options checked, defaults applied. */
export interface ResolvedCommandSessionOptions extends ResolvedCommandSettings {
  readonly root: WorkspaceRoot;
}

/** Every option but the working directory, checked: what `workspace()` shares across its Sessions' roots. */
export interface ResolvedCommandSettings extends CommandSessionPorts {
  readonly shell: CommandShell;
  readonly environment: ResolvedEnvironmentPolicy;
  readonly executionTimeoutMs: number;
  readonly initialYieldMs: number;
  readonly pollWaitMs: number;
  readonly maxOutputBytesPerStream: number;
  readonly killGraceMs: number;
  readonly maxLiveCommands: number;
}

const known = new Set([
  "workingDirectory",
  "shell",
  "environment",
  "executionTimeoutMs",
  "initialYieldMs",
  "pollWaitMs",
  "maxOutputBytesPerStream",
  "killGraceMs",
  "maxLiveCommands",
  "onTerminalUpdate",
  "readTerminal",
  "onSessionCommandsChanged",
]);

/**
 * Checks the options and applies the defaults.
 *
 * @throws CommandOptionsError (`command_options_invalid`) for a missing, unknown or bad option.
 * @throws WorkspaceRootError (`workspace_root_invalid`) when `workingDirectory` is not a `file:` URL of an existing directory.
 * @throws EnvironmentPolicyError (`environment_invalid`) for a malformed environment policy.
 */
export function resolveCommandSessionOptions(options: CommandSessionOptions): ResolvedCommandSessionOptions {
  const where = "createCommandSessionPlugin";
  const settings = resolveCommandSettings(options, where, known);
  if (options.workingDirectory === undefined) {
    throw new CommandOptionsError(`${where}: workingDirectory is required: a file: URL of an existing directory.`);
  }
  return Object.freeze({ ...settings, root: bindWorkspaceRootSync(options.workingDirectory) });
}

/**
 * Checks every option but `workingDirectory` and applies the defaults; `where` names the
 * caller in errors, and `allowed` lists the keys it accepts.
 *
 * @throws CommandOptionsError (`command_options_invalid`), EnvironmentPolicyError (`environment_invalid`).
 */
export function resolveCommandSettings(
  options: Omit<CommandSessionOptions, "workingDirectory">,
  where: string,
  allowed: ReadonlySet<string>,
): ResolvedCommandSettings {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new CommandOptionsError(`${where}: options are required.`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) {
      throw new CommandOptionsError(`${where}: ${key} is not an option; the options are ${[...allowed].join(", ")}.`);
    }
  }
  const port = <K extends keyof CommandSessionPorts>(name: K) => checkedPort(where, options, name);
  if (options.environment === undefined) {
    throw new CommandOptionsError(
      `${where}: environment is required: an environment policy such as { inherit: "core" }.`,
    );
  }
  const limits = resolveCommandLimits(options, where);
  const resolved: ResolvedCommandSettings = {
    shell: checkShell(options.shell, where),
    environment: resolveEnvironmentPolicy(options.environment, where),
    ...limits,
    initialYieldMs: checkedInteger(
      where,
      options.initialYieldMs,
      "initialYieldMs",
      10_000,
      0,
      limits.executionTimeoutMs,
    ),
    pollWaitMs: checkedInteger(where, options.pollWaitMs, "pollWaitMs", 1_000, 0, 60_000),
    ...port("onTerminalUpdate"),
    ...port("readTerminal"),
    ...port("onSessionCommandsChanged"),
  };
  return Object.freeze(resolved);
}

/** The keys `workspace()`'s `commands` accepts: every option but `workingDirectory`. */
export const commandSettingKeys: ReadonlySet<string> = new Set([...known].filter((key) => key !== "workingDirectory"));

function checkedPort<K extends keyof CommandSessionPorts>(
  where: string,
  options: Omit<CommandSessionOptions, "workingDirectory">,
  name: K,
): Pick<CommandSessionPorts, K> {
  const value = options[name];
  if (value === undefined) return {} as Pick<CommandSessionPorts, K>;
  if (typeof value !== "function") throw new CommandOptionsError(`${where}: ${name} must be a function.`);
  return { [name]: value } as Pick<CommandSessionPorts, K>;
}
