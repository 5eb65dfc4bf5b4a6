import { CastellanError, errorMessage } from "@castellan/harness";
import type { CommandRuntime } from "@castellan/node-runner";
import { OutputTail } from "./output-tail.js";

/** What one server command in the job's sandbox is. */
export interface ServerCommandRequest {
  /** The shell text, run as `/bin/sh -c <command>`. */
  readonly command: string;
  /** A workspace path beneath the runtime's root to run in; default the root. */
  readonly cwd?: string;
  /** The deadline from spawn; past it the group is killed and the exit code is 124. */
  readonly timeoutMs: number;
  /** How often `onHeartbeat` is called while the command runs; default never. */
  readonly heartbeatMs?: number;
  /** Called every `heartbeatMs` while the command runs (the inactivity watchdog's feed). */
  readonly onHeartbeat?: () => void;
  /** Bytes of output kept: the last ones, after scrubbing. */
  readonly tailBytes: number;
  /** Extra variables for this command (the artifact upload seam), over the job's environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
}

/** How a server command ended. */
export interface ServerCommandResult {
  /**
   * `exit` (its own code), `timeout` (124), `aborted` (130: the job stopped), `signal`
   * (128 + the signal's number), or `spawn-failed` (127: the command could not be started).
   */
  readonly outcome: "exit" | "timeout" | "aborted" | "signal" | "spawn-failed";
  readonly exitCode: number;
  /** The interleaved stdout and stderr, scrubbed, then cut to its last `tailBytes`. */
  readonly output: string;
  readonly truncated: boolean;
  /** Bytes left out before `output`. */
  readonly droppedBytes: number;
  readonly durationMs: number;
}

const signalNumbers: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

/**
 * Runs one command of the server's own (install, validation, reproduction) on `commands`, in
 * its sandbox, and never throws for the command's own failure: every
 * shape of failure is a result with an exit code, so the caller decides what it means; a job
 * that stops ends the command's group and reads `aborted` (130).
 */
export async function runServerCommand(
  commands: CommandRuntime,
  request: ServerCommandRequest,
): Promise<ServerCommandResult> {
  const tail = new OutputTail(request.tailBytes);
  const started = performance.now();
  const heartbeat =
    request.heartbeatMs && request.onHeartbeat ? setInterval(request.onHeartbeat, request.heartbeatMs) : undefined;
  const done = (outcome: ServerCommandResult["outcome"], exitCode: number, note?: string): ServerCommandResult => {
    if (note) tail.push(`${tail.total > 0 ? "\n" : ""}${note}\n`);
    const read = tail.read(request.scrub);
    return {
      outcome,
      exitCode,
      output: read.text,
      truncated: read.truncated,
      droppedBytes: read.droppedBytes,
      durationMs: Math.round(performance.now() - started),
    };
  };
  try {
    const result = await commands.run({
      command: request.command,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      onOutput: (chunk) => tail.push(chunk.text),
      ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
      ...(request.env ? { env: request.env } : {}),
    });
    if (result.outcome === "timeout") return done("timeout", 124, `(timed out after ${request.timeoutMs} ms)`);
    if (result.outcome === "cleanup" || request.signal.aborted) return done("aborted", 130, "(stopped with the job)");
    if (result.exitCode !== null) return done("exit", result.exitCode);
    const signal = result.signal ?? "SIGKILL";
    return done("signal", 128 + (signalNumbers[signal] ?? 9), `(ended by ${signal})`);
  } catch (error) {
    const code = error instanceof CastellanError ? error.code : undefined;
    if (code === "command_aborted" || request.signal.aborted) return done("aborted", 130, "(stopped with the job)");
    const message = errorMessage(error);
    return done("spawn-failed", 127, `(the command could not be started: ${message})`);
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }
}
