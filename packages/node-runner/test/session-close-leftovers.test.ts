// No process outlives its Session (issue 26, item 7): Sessions of an OS workspace() closed 0 to
// 100 ms after a sandboxed command started (every 5 ms, twice each here; ten times each in
// heavy/session-close-sweep.heavy.ts), for the host's runSessionCommand and for the model's
// exec_command, leave nothing of the run in /proc: no bubblewrap namespace init reparented to
// init, no socat bridge, no wrapper, no command. Real bubblewrap; skipped, named on the closing line, where bwrap, socat or rg is absent (under CI that fails).
import { expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { closeSweep, type SweepPath } from "./support/close-sweep.ts";

const delaysMs = Array.from({ length: 21 }, (_, index) => index * 5);

describeNeeding(osSandboxPrograms, "closing Sessions as a sandboxed command starts", () => {
  it.each<SweepPath>(["runSessionCommand", "exec_command"])(
    "%s: 0-100 ms in 5 ms steps, twice each, leaves no process of the run",
    async (path) => {
      const outcome = await closeSweep({ path, delaysMs, rounds: 2, concurrency: 2 });
      expect(outcome.trials).toBe(42);
      expect(outcome.left).toEqual([]);
    },
    120_000,
  );
});
