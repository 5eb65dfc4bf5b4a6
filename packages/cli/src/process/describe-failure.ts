import { isCastellanError } from "@castellan/harness";
import { sandboxInstallLine } from "../system/sandbox-packages.js";

/**
 * The text of a failure for stderr: `<code> (<cause's code>): <message>` for a Castellan error, with the
 * packages to install and "run castellan doctor" when the OS sandbox is unavailable.
 */
export function describeFailure(error: unknown): string {
  if (!isCastellanError(error)) return (error as Error)?.message ?? String(error);
  const cause = (error as { cause?: unknown }).cause;
  const inner = isCastellanError(cause) && cause.code !== error.code ? ` (${cause.code})` : "";
  const text = `${error.code}${inner}: ${error.message}`;
  if (error.code !== "sandbox_unavailable") return text;
  const missing = (error as { missing?: readonly string[] }).missing ?? [];
  const install = missing.length > 0 ? ` Install them with: ${sandboxInstallLine(missing)}.` : "";
  return `${text}${install} Run castellan doctor to see what this machine lacks.`;
}
