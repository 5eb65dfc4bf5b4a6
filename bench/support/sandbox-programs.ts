// Whether a bench's smoke test can run here: the OS sandbox's programs (bwrap, socat, rg).
// Missing, the test is skipped with a note saying what is missing; under CI that fails instead.
import { checkSandboxDependencies } from "@castellan/node-runner";

/** `bwrap`'s path when the sandbox's programs are all here, and the skip note otherwise. */
export function sandboxPrograms(): { readonly bwrap: string | undefined; readonly skipNote: string } {
  try {
    return { bwrap: checkSandboxDependencies().bwrap, skipNote: "" };
  } catch (error) {
    const ci = process.env.CI;
    if (ci !== undefined && ci !== "" && ci !== "false" && ci !== "0") throw error;
    return {
      bwrap: undefined,
      skipNote: ` — SKIPPED: ${error instanceof Error ? error.message : String(error)} (required under CI)`,
    };
  }
}
