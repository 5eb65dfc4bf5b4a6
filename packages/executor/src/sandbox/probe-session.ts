import type { EnvironmentPolicy, SandboxFilesystemPolicy } from "@castellan/node-runner";
import { withCommandSession } from "../commands/command-session.js";
import type { ProbeRunner } from "../probes/probe-runner.js";
import { sessionProbe } from "../probes/session-probe.js";

/** Where a probe Session is rooted and what it may reach. */
export interface ProbeSessionOptions {
  /** The directory the workspace is rooted at (an empty private one). */
  readonly root: string;
  readonly environment: EnvironmentPolicy;
  readonly filesystem?: SandboxFilesystemPolicy;
  readonly signal: AbortSignal;
}

/**
 * Opens a server command Session with no network, hands `use` a runner of probe commands in
 * it, and closes everything after. Errors opening the sandbox reject.
 */
export function withProbeSession<Result>(
  options: ProbeSessionOptions,
  use: (probe: ProbeRunner) => Promise<Result>,
): Promise<Result> {
  return withCommandSession(options, (session) => use(sessionProbe(session, options.signal)));
}
