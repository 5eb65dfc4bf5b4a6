// A vitest globalSetup (vitest.config.ts, vitest.heavy.config.ts): no bubblewrap or socat may
// outlive the test run. The baseline is taken when the run starts; the teardown runs the check
// (unless the summary reporter already did, at the run's end) and fails the run when something
// is left: vitest only logs a teardown's throw and keeps exit code 0, so the code is set here.
import { leftoverReport, registerRunLeftoverCheck } from "./sandbox-leftovers.ts";

/** Takes the baseline; returns the teardown that checks against it. */
export function setup(): () => Promise<void> {
  const check = registerRunLeftoverCheck();
  return async () => {
    const left = await check.run();
    if (left.length === 0) return;
    process.exitCode = 1;
    if (!check.reported) {
      check.reported = true;
      process.stderr.write(`\n${leftoverReport(left)}\n`);
    }
  };
}
