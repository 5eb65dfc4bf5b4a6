import type { CliIo } from "../process/cli-io.js";
import { exitCodes } from "../process/exit-codes.js";
import type { DoctorCheck } from "./doctor-check.js";
import { chromiumCheck, nodeCheck, programChecks } from "./program-checks.js";
import { anyProviderSet, providerChecks } from "./provider-checks.js";
import { sandboxProbe } from "./sandbox-probe.js";

/** Every check of `castellan doctor`, in the order printed. */
export async function doctorChecks(env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  return [nodeCheck(), ...programChecks(env), chromiumCheck(env), await sandboxProbe(), ...providerChecks(env)];
}

/** The lines `castellan doctor` prints: one per check, then what to do for each that is not ok. */
export function formatDoctor(checks: readonly DoctorCheck[]): string {
  const lines = checks.map((entry) => `${entry.status.padEnd(7)} ${entry.check}: ${entry.detail}`);
  const todo = checks.filter((entry) => entry.status !== "ok" && entry.fix !== undefined);
  if (todo.length > 0) lines.push("", "To do:", ...todo.map((entry) => `  ${entry.check}: ${entry.fix}`));
  return `${lines.join("\n")}\n`;
}

/**
 * `castellan doctor [--json]`: answers 0 when what plain `castellan` needs is ok (Node, the
 * sandbox's programs, the sandbox probe and one provider key), else 1.
 */
export async function runDoctor(json: boolean, io: CliIo): Promise<number> {
  const checks = await doctorChecks(io.env);
  io.stdout.write(json ? `${JSON.stringify(checks, null, 2)}\n` : formatDoctor(checks));
  const ready = checks.every((entry) => !entry.required || entry.status === "ok") && anyProviderSet(io.env);
  return ready ? exitCodes.done : exitCodes.failed;
}
