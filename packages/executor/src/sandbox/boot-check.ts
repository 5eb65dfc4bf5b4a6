import { rm } from "node:fs/promises";
import { errorMessage } from "@castellan/harness";
import { makePrivateDirectory, writePrivateFileAtomically } from "@castellan/node-runner";
import { jobEnvironmentPolicy } from "../config/job-environment.js";
import { withProbeSession } from "./probe-session.js";
import { probeSandbox, type SandboxVerdict, sandboxVerdictOfError } from "./sandbox-probe.js";

/** The boot-time sandbox record, as written to `sandboxStatusFile`. */
export interface SandboxBootRecord {
  readonly verdict: SandboxVerdict["state"];
  readonly reason?: string;
  readonly probeBinary: string;
  /** When the check ended (ISO 8601). */
  readonly at: string;
  readonly durationMs: number;
}

/** What the boot check needs. */
export interface BootCheckOptions {
  /** An empty private directory it may root a workspace at; removed after. */
  readonly root: string;
  readonly probeBinary: string;
  /** The whole check's budget, opening the sandbox included, in seconds. */
  readonly timeoutSeconds: number;
  /** Where the record is written, atomically and 0600. */
  readonly statusFile: string;
  /** The server's own paths the probe may not read. */
  readonly protectedPaths: readonly string[];
  /** Stops the check (the server is closing). */
  readonly signal: AbortSignal;
}

/**
 * The boot-time sandbox check: `probeBinary` run in a fresh sandboxed Session within the budget.
 * The record is a hypothesis for `/health`, never a gate: every job checks again, live. Never
 * throws; a record that cannot be written is reported in the returned `writeError`.
 */
export async function runBootSandboxCheck(
  options: BootCheckOptions,
): Promise<{ readonly record: SandboxBootRecord; readonly writeError?: string }> {
  const started = Date.now();
  const budget = AbortSignal.timeout(options.timeoutSeconds * 1_000);
  const signal = AbortSignal.any([options.signal, budget]);
  let verdict: SandboxVerdict;
  try {
    await makePrivateDirectory(options.root);
    verdict = await withProbeSession(
      {
        root: options.root,
        environment: jobEnvironmentPolicy(options.root),
        filesystem: { denyRead: [...options.protectedPaths], allowRead: [options.root] },
        signal,
      },
      (probe) =>
        probeSandbox(probe, options.probeBinary, Math.max(1, options.timeoutSeconds * 1_000 - (Date.now() - started))),
    );
  } catch (error) {
    verdict = budget.aborted
      ? { state: "undetermined", reason: `the check did not finish within ${options.timeoutSeconds} s` }
      : sandboxVerdictOfError(error);
  } finally {
    await rm(options.root, { recursive: true, force: true }).catch(() => undefined);
  }
  if (budget.aborted && verdict.state === "undetermined" && !verdict.reason.startsWith("the check")) {
    verdict = { state: "undetermined", reason: `the check did not finish within ${options.timeoutSeconds} s` };
  }
  const record: SandboxBootRecord = {
    verdict: verdict.state,
    ...(verdict.state !== "usable" ? { reason: verdict.reason } : {}),
    probeBinary: options.probeBinary,
    at: new Date().toISOString(),
    durationMs: Date.now() - started,
  };
  try {
    await writePrivateFileAtomically(options.statusFile, `${JSON.stringify(record)}\n`);
    return { record };
  } catch (error) {
    return { record, writeError: errorMessage(error) };
  }
}
