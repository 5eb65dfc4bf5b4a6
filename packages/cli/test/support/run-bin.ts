// Runs the built `castellan` bin as a child process with a test's environment (nothing of the
// test process's own, so no developer key or CASTELLAN_* variable leaks in), and collects what
// it printed and how it exited.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built bin (npm test builds before vitest runs). */
export const castellanBin = fileURLToPath(new URL("../../dist/bin/castellan.js", import.meta.url));

/** What one run of the bin printed and how it exited. */
export interface BinResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A started bin: `done` settles when it exits. */
export interface RunningBin {
  readonly child: ChildProcess;
  readonly done: Promise<BinResult>;
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string };
}

/** Starts `castellan <args>` in `cwd` with exactly `env` (plus PATH unless given) and `input` on stdin. */
export function startBin(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): RunningBin {
  const child = spawn(process.execPath, [castellanBin, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdin?.end(options.input ?? "");
  const done = new Promise<BinResult>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done, output: () => ({ stdout, stderr }) };
}

/** Runs `castellan <args>` to its exit. */
export function runBin(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<BinResult> {
  return startBin(args, options).done;
}
