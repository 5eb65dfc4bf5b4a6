// A layer's program that reports a PID namespace's init (as bubblewrap's --info-fd does): the
// supervisor kills that process when it ends the command, also when the report comes after the
// end began or after the group is gone. The "init" here is a daemon that left the command's
// tree (a double fork into a session of its own), so nothing but the report leads to it.
import { afterEach, describe, expect, it } from "vitest";
import {
  printedPids,
  processesWithMarker,
  readStdoutUntil,
  shellCommand,
  stillRunning,
  uniqueMarker,
  useSupervisors,
} from "../../../test/fixtures/command-processes.ts";
import { reportedChildPid, setNamespaceInitKillForTesting } from "./namespace-init.js";
import type { CommandSpawnLayer } from "./types.js";

const supervisorFor = useSupervisors();
const strays: string[] = [];
afterEach(async () => {
  setNamespaceInitKillForTesting(true);
  for (const marker of strays.splice(0)) {
    for (const pid of await processesWithMarker(marker)) process.kill(pid, "SIGKILL");
  }
});

/** A layer that runs `script` under /bin/sh with a report pipe on descriptor 3. */
function reportingLayer(script: string): CommandSpawnLayer {
  return {
    prepare: () => ({
      argv: ["/bin/sh", "-c", script],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      pidNamespaceReportFd: 3,
    }),
  };
}

/** Starts `sleep <marker>` outside the command's tree, in a session of its own; `$init` is its pid. */
const daemon = (marker: string) => `init=$( (setsid sleep ${marker} 3>&- >/dev/null 2>&1 & echo $!) )`;
const report = `printf '{\\n    "child-pid": %d,\\n    "pid-namespace": 4026532000\\n}\\n' "$init" >&3; exec 3>&-`;

/** Waits until no process carries `marker`, at most `ms`; returns what is left. */
async function settled(marker: string, ms = 3_000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = await processesWithMarker(marker);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a reported PID namespace init", () => {
  it("reads bubblewrap's report: the child-pid once its digits are complete", () => {
    expect(reportedChildPid('{\n    "child-pid": 4242,\n    "cgroup-namespace": 1')).toBe(4242);
    expect(reportedChildPid('{ "child-pid": 17 }')).toBe(17);
    // Digits may still be on their way; pid 1 and nonsense are never taken.
    expect(reportedChildPid('{ "child-pid": 42')).toBeUndefined();
    expect(reportedChildPid('{ "child-pid": 1 }')).toBeUndefined();
    expect(reportedChildPid('{ "exit-code": 0 }')).toBeUndefined();
  });

  it("is killed when the command is stopped, though it left the command's tree", async () => {
    const supervisor = supervisorFor({ killGraceMs: 200 });
    const marker = uniqueMarker();
    strays.push(marker);
    const info = await supervisor.spawn(
      shellCommand("s1", "unused", { layer: reportingLayer(`${daemon(marker)}; ${report}; echo "$init"; sleep 30`) }),
    );
    const [init] = printedPids(await readStdoutUntil(supervisor, info.commandId, (text) => /^\d+$/m.test(text)));
    expect(await stillRunning([init as number])).toEqual([init]);
    await supervisor.stop(info.commandId);
    expect(await processesWithMarker(marker)).toEqual([]);
  });

  it("is killed when the command exits by itself", async () => {
    const supervisor = supervisorFor({ killGraceMs: 200 });
    const marker = uniqueMarker();
    strays.push(marker);
    const info = await supervisor.spawn(
      shellCommand("s1", "unused", { layer: reportingLayer(`${daemon(marker)}; ${report}; exit 0`) }),
    );
    expect(await supervisor.waitFor(info.commandId, { untilMs: 10_000 })).toMatchObject({
      state: "ended",
      result: { outcome: "exit", exitCode: 0 },
    });
    expect(await processesWithMarker(marker)).toEqual([]);
  });

  it("is killed when its report comes only after the end began", async () => {
    const supervisor = supervisorFor({ killGraceMs: 1_000 });
    const marker = uniqueMarker();
    strays.push(marker);
    // The leader outlives SIGTERM, so it reports 300 ms into the grace.
    const script = `trap '' TERM; ${daemon(marker)}; echo "$init"; sleep 0.3; ${report}; sleep 30`;
    const info = await supervisor.spawn(shellCommand("s1", "unused", { layer: reportingLayer(script) }));
    const [init] = printedPids(await readStdoutUntil(supervisor, info.commandId, (text) => /^\d+$/m.test(text)));
    const stopped = supervisor.stop(info.commandId);
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Killed on its report, while the leader still waits out its grace.
    expect(await stillRunning([init as number])).toEqual([]);
    expect(await processesWithMarker(marker)).toHaveLength(1);
    expect(await stopped).toMatchObject({ outcome: "stop", signal: "SIGKILL" });
    expect(await processesWithMarker(marker)).toEqual([]);
  });

  it("is killed when its report comes after the group is gone", async () => {
    const supervisor = supervisorFor({ killGraceMs: 200 });
    const marker = uniqueMarker();
    strays.push(marker);
    // The writer left the group: it reports its own pid 300 ms later, when the group is gone.
    const late = `(setsid sh -c 'sleep 0.3; printf "{ \\"child-pid\\": %d }\\n" $$ >&3; exec 3>&-; exec sleep ${marker}' >/dev/null 2>&1 &)`;
    const info = await supervisor.spawn(
      shellCommand("s1", "unused", { layer: reportingLayer(`${late}; exec 3>&-; echo ready; sleep 30`) }),
    );
    await readStdoutUntil(supervisor, info.commandId, (text) => text.includes("ready"));
    await supervisor.stop(info.commandId);
    expect(await settled(marker)).toEqual([]);
  });

  it("is left running with the kill turned off: the cases above can fail", async () => {
    const supervisor = supervisorFor({ killGraceMs: 200 });
    const marker = uniqueMarker();
    strays.push(marker);
    setNamespaceInitKillForTesting(false);
    const info = await supervisor.spawn(
      shellCommand("s1", "unused", { layer: reportingLayer(`${daemon(marker)}; ${report}; echo ready; sleep 30`) }),
    );
    await readStdoutUntil(supervisor, info.commandId, (text) => text.includes("ready"));
    await supervisor.stop(info.commandId);
    expect(await processesWithMarker(marker)).toHaveLength(1);
  });

  it("refuses a report descriptor outside 3 to 8: nothing spawns", async () => {
    const supervisor = supervisorFor();
    const layer: CommandSpawnLayer = {
      prepare: () => ({ argv: ["/bin/sh", "-c", "true"], env: {}, pidNamespaceReportFd: 9 }),
    };
    await expect(supervisor.spawn(shellCommand("s1", "unused", { layer }))).rejects.toMatchObject({
      code: "command_spawn_failed",
    });
  });
});
