// The sandbox tests need real bubblewrap: skipped, saying so in the suite's name, where it is
// absent; under CI a missing bwrap fails the file instead of passing quietly.
import { runningUnderCi } from "../../../../test-support/shared-conformance.ts";
import { findExecutable } from "../../src/commands/sandbox/preflight.js";

/** Where `bwrap` is, or undefined; throws under CI when it is not on PATH. */
export function requireBubblewrap(): { readonly bwrap: string | undefined; readonly skipNote: string } {
  const bwrap = findExecutable("bwrap");
  if (bwrap === undefined && runningUnderCi()) {
    throw new Error(
      `bubblewrap (bwrap) is required under CI (CI=${process.env.CI}) for the sandbox tests, but is not in PATH.`,
    );
  }
  const skipNote = bwrap === undefined ? " — SKIPPED: bubblewrap (bwrap) is not in PATH (it is required under CI)" : "";
  return { bwrap, skipNote };
}
