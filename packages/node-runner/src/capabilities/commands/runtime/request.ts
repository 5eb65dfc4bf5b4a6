import type { CommandOutcome, CommandOutputChunk } from "../../../platform/process/index.js";

/** One command a host runs on a command runtime. */
export interface CommandRunRequest {
  /** The shell command text, 1 to 65,536 bytes. */
  readonly command: string;
  /** A workspace path beneath the runtime's root. Default `.`. */
  readonly cwd?: string;
  /**
   * Variables set over the runtime's environment policy, as its `set` would be: the secret
   * filter does not remove them, but a name that is never passed (`CASTELLAN_*`, `OPENAI_*`,
   * ...) is refused, and the policy's `includeOnly` still applies. Default: none.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The deadline from spawn (then `timeout`, exit code 124). Default: the runtime's `executionTimeoutMs`; 1 to 2,147,483,647 ms. */
  readonly timeoutMs?: number;
  /** Bytes kept of each stream (first and last halves). Default: the runtime's bound; 1,024 to 16,777,216. */
  readonly maxOutputBytesPerStream?: number;
  /** Live output as it is read, for heartbeats; what it throws is ignored. Default: none. */
  readonly onOutput?: (chunk: CommandOutputChunk) => void;
  /** Aborting it ends the command's group (outcome `cleanup`). */
  readonly signal?: AbortSignal;
}

/** How a host command ended, with its bounded output. */
export interface CommandRunResult {
  readonly outcome: CommandOutcome;
  /** The exit code; 124 for `timeout`; null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The kept text of each stream: its first and last halves when over the bound. */
  readonly stdout: string;
  readonly stderr: string;
  /** Bytes left out between the kept halves, per stream. */
  readonly droppedBytes: { readonly stdout: number; readonly stderr: number };
  readonly durationMs: number;
}

const maxCommandBytes = 65_536;

/**
 * What is wrong with a request, or undefined: callers throw it as their own typed error before
 * anything spawns. `where` names the caller; `timeoutRequired` is true for `runSessionCommand`,
 * whose requests name their deadline.
 */
export function runRequestProblem(
  request: CommandRunRequest,
  where: string,
  timeoutRequired = false,
): string | undefined {
  if (request === null || typeof request !== "object") return `${where}: a request is required.`;
  const bytes = typeof request.command === "string" ? Buffer.byteLength(request.command, "utf8") : 0;
  if (bytes < 1 || bytes > maxCommandBytes) {
    return `${where}: command must be 1 to ${maxCommandBytes.toLocaleString("en")} bytes of UTF-8.`;
  }
  const timeout = request.timeoutMs;
  if (timeout !== undefined || timeoutRequired) {
    if (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < 1 || timeout > 2_147_483_647) {
      return `${where}: timeoutMs ${timeoutRequired ? "is required: " : "must be "}an integer from 1 to 2,147,483,647.`;
    }
  }
  if (request.cwd !== undefined && typeof request.cwd !== "string") return `${where}: cwd must be a workspace path.`;
  if (request.onOutput !== undefined && typeof request.onOutput !== "function") {
    return `${where}: onOutput must be a function.`;
  }
  return undefined;
}
