import type { JobRun } from "../run/job-run.js";

/** Phase `agent`: the first agent pass (its salvage after it, where the kind salvages). */
export async function firstPass(run: JobRun): Promise<void> {
  await run.pass();
}
