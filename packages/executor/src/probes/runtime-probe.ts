import type { CommandRunRequest, CommandRunResult, CommandRuntime } from "@castellan/node-runner";
import type { ProbeRunner } from "./probe-runner.js";

/** Runs one command to its end somewhere: a command runtime's `run`, or `runSessionCommand` on a Session. */
export type RunCommand = (request: CommandRunRequest & { readonly timeoutMs: number }) => Promise<CommandRunResult>;

/** Runs probe commands through `run` (in its sandbox, under its policies), ended with `signal`. */
export function commandProbe(run: RunCommand, signal: AbortSignal): ProbeRunner {
  return async (command, timeoutMs) => {
    const result = await run({ command, timeoutMs, signal });
    return {
      exitCode: result.exitCode,
      timedOut: result.outcome === "timeout",
      stdout: result.stdout,
      stderr: result.stderr,
    };
  };
}

/** Runs probe commands on `commands`. */
export function runtimeProbe(commands: CommandRuntime, signal: AbortSignal): ProbeRunner {
  return commandProbe((request) => commands.run(request), signal);
}
