import { accessSync, constants, statSync } from "node:fs";
import { errorMessage } from "@castellan/harness";
import {
  SandboxUnavailableError,
  SandboxWorkerMissingError,
  shellArgument as shellQuote,
} from "@castellan/node-runner";
import type { ProbeRunner } from "../probes/probe-runner.js";

/**
 * What a sandbox check decided. `usable`: the probe binary ran sandboxed and exited 0.
 * `unusable`: the sandbox itself refused (bubblewrap said no, or a program it needs is
 * missing). `undetermined`: our own machinery could not tell (no probe binary, no worker, a
 * timeout), which is never read as a broken sandbox.
 */
export type SandboxVerdict =
  | { readonly state: "usable" }
  | { readonly state: "unusable"; readonly reason: string }
  | { readonly state: "undetermined"; readonly reason: string; readonly settled?: boolean };

/** True when `path` is an executable file; a missing probe binary is a settled "could not tell". */
function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function firstLine(text: string): string {
  const line = text.split("\n").find((entry) => entry.trim() !== "") ?? "";
  return line.trim().slice(0, 300);
}

/**
 * Runs `probeBinary` through `run` (a command in the sandbox) within `timeoutMs` and decides.
 * Bubblewrap's own refusal (`bwrap: ...` on stderr, a non-zero exit) and a sandbox that cannot
 * start here (`SandboxUnavailableError` naming what is missing) are `unusable`; everything else
 * that is not an exit 0 is `undetermined`. Never throws.
 */
export async function probeSandbox(run: ProbeRunner, probeBinary: string, timeoutMs: number): Promise<SandboxVerdict> {
  if (!executable(probeBinary)) {
    return {
      state: "undetermined",
      reason: `the probe binary ${probeBinary} is not an executable file`,
      settled: true,
    };
  }
  try {
    const result = await run(shellQuote(probeBinary), timeoutMs);
    if (result.exitCode === 0) return { state: "usable" };
    if (result.timedOut) return { state: "undetermined", reason: `the probe did not finish within ${timeoutMs} ms` };
    const refusal = result.stderr.split("\n").find((line) => line.startsWith("bwrap:"));
    if (refusal) return { state: "unusable", reason: `bubblewrap refused: ${firstLine(refusal.slice(6))}` };
    return {
      state: "undetermined",
      reason: `the probe exited ${result.exitCode ?? "by a signal"}${result.stderr.trim() ? `: ${firstLine(result.stderr)}` : ""}`,
    };
  } catch (error) {
    return sandboxVerdictOfError(error);
  }
}

/**
 * The verdict of an error met while opening or using a sandbox: a missing program or an
 * unsupported platform is the sandbox refusing (`unusable`); anything else, our worker
 * included, is `undetermined`.
 */
export function sandboxVerdictOfError(error: unknown): SandboxVerdict {
  if (error instanceof SandboxUnavailableError && error.missing.length > 0) {
    return { state: "unusable", reason: `the sandbox needs ${error.missing.join(", ")}, which is missing` };
  }
  if (error instanceof SandboxUnavailableError && /Linux only/.test(error.message)) {
    return { state: "unusable", reason: firstLine(error.message) };
  }
  if (error instanceof SandboxWorkerMissingError) {
    return { state: "undetermined", reason: "the sandbox worker is not built", settled: true };
  }
  return {
    state: "undetermined",
    reason: `the probe could not be run: ${firstLine(errorMessage(error))}`,
  };
}
