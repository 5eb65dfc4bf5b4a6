// The sandbox tests need the OS sandbox's programs (bwrap, socat, rg): test-support decides,
// skipping outside CI with the reason in the suite's name and failing under CI. New suites call
// `describeNeeding(osSandboxPrograms, …)` instead, which also lists the skip on the closing line.
import { osSandboxPrograms, programPath, requirePrograms } from "../../../../test-support/system-programs.ts";

/**
 * Where `bwrap` is when bwrap, socat and rg are all here, or undefined (with `skipNote` naming
 * what is missing and its install command); throws under CI when one is missing.
 */
export function requireBubblewrap(): { readonly bwrap: string | undefined; readonly skipNote: string } {
  const check = requirePrograms(osSandboxPrograms);
  return { bwrap: check.available ? programPath("bwrap") : undefined, skipNote: check.skipNote };
}
