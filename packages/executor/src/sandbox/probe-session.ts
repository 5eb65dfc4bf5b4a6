import type { EnvironmentPolicy, SandboxFilesystemPolicy } from "@castellan/node-runner";
import { withJobCommands } from "../commands/job-commands.js";
import type { ProbeRunner } from "../probes/probe-runner.js";
import { runtimeProbe } from "../probes/runtime-probe.js";

/** Where a probe's commands are rooted and what they may reach. */
export interface ProbeSessionOptions {
  /** The directory the workspace is rooted at (an empty private one). */
  readonly root: string;
  readonly environment: EnvironmentPolicy;
  readonly filesystem?: SandboxFilesystemPolicy;
  readonly signal: AbortSignal;
}

/**
 * Opens a command runtime with no network, hands `use` a runner of probe commands in it, and
 * closes everything after. Errors opening the sandbox reject.
 */
export function withProbeSession<Result>(
  options: ProbeSessionOptions,
  use: (probe: ProbeRunner) => Promise<Result>,
): Promise<Result> {
  return withJobCommands(options, (commands) => use(runtimeProbe(commands, options.signal)));
}
