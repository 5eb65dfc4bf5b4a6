// The full sweep of issue 26, item 7 (the normal suite runs it with two rounds): Sessions of an
// OS workspace() closed 0 to 100 ms after a sandboxed command started, every 5 ms, ten times
// each, for runSessionCommand and for the model's exec_command: 420 Sessions, and not one
// process of the run left in /proc. About two minutes on two cores.
import { expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { closeSweep, type SweepPath } from "../test/support/close-sweep.ts";

const delaysMs = Array.from({ length: 21 }, (_, index) => index * 5);

describeNeeding(osSandboxPrograms, "closing Sessions as a sandboxed command starts", () => {
  it.each<SweepPath>(["runSessionCommand", "exec_command"])(
    "%s: 0-100 ms in 5 ms steps, ten times each, leaves no process of the run",
    async (path) => {
      const outcome = await closeSweep({ path, delaysMs, rounds: 10, concurrency: 2 });
      expect(outcome.trials).toBe(210);
      expect(outcome.left).toEqual([]);
    },
    240_000,
  );
});
