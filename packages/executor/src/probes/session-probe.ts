import { runSessionCommand, type Session } from "@castellan/node-runner";
import type { ProbeRunner } from "./probe-runner.js";

/** Runs probe commands as host commands of `session` (in its sandbox, under its policies). */
export function sessionProbe(session: Session, signal: AbortSignal): ProbeRunner {
  return async (command, timeoutMs) => {
    const result = await runSessionCommand(session, { command, timeoutMs, signal });
    return {
      exitCode: result.exitCode,
      timedOut: result.outcome === "timeout",
      stdout: result.stdout,
      stderr: result.stderr,
    };
  };
}
