// The attack corpus for "no process outlives its Session" (issue 26, item 7), through the
// model's own tool calls: a scripted model calls exec_command with a command that forks a
// long-lived daemon into a session of its own and then sleeps, and the host closes the Session
// (aborting the Run) 0 to 100 ms after the tool started. Against the shipped configuration
// nothing of the run is left in /proc. The case is shown able to fail: with the supervisor's
// kill of bubblewrap's namespace init turned off (a test-only seam), the same closes leave a
// bubblewrap init reparented to init with its tree, and the case finds it. Real bubblewrap.
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { setNamespaceInitKillForTesting } from "../src/platform/process/namespace-init.js";
import { closeSweep } from "./support/close-sweep.ts";

const delaysMs = Array.from({ length: 21 }, (_, index) => index * 5);
/** The attack: a daemon that leaves the command's group and session, then the command sleeps. */
const daemonThenSleep = "(setsid sh -c 'trap \"\" TERM HUP; exec sleep 3000' >/dev/null 2>&1 &); sleep 3000";

afterEach(() => setNamespaceInitKillForTesting(true));

describeNeeding(osSandboxPrograms, "attack corpus: a command that outlives its Session", () => {
  it("a daemon forked by exec_command, the Session closed at once: nothing of it is left", async () => {
    const outcome = await closeSweep({
      path: "exec_command",
      delaysMs,
      rounds: 1,
      concurrency: 2,
      command: daemonThenSleep,
    });
    expect(outcome.trials).toBe(21);
    expect(outcome.left).toEqual([]);
  }, 120_000);

  it("the same attack with the namespace init kill turned off leaves bubblewrap's init behind, and is detected", async () => {
    setNamespaceInitKillForTesting(false);
    // About one close in four lost the race before the fix: three sweeps give it ample chances.
    const outcome = await closeSweep({
      path: "exec_command",
      delaysMs: [...delaysMs, ...delaysMs, ...delaysMs],
      rounds: 1,
      concurrency: 2,
      command: daemonThenSleep,
      stopAtFirstLeft: true,
    });
    expect(outcome.left).toContainEqual(expect.objectContaining({ name: "bwrap", parent: 1 }));
  }, 120_000);
});
