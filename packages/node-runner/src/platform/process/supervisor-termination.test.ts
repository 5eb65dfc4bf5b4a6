import { describe, expect, it } from "vitest";
import {
  printedPids,
  processesWithMarker,
  readStdoutUntil,
  shellCommand,
  stillRunning,
  uniqueMarker,
  useSupervisors,
} from "../../../test/fixtures/command-processes.ts";

const supervisorFor = useSupervisors();

/** A line count reached: `count` pids printed. */
const pidCount = (count: number) => (text: string) => printedPids(text).length >= count;

describe("ending a command", () => {
  it("terminates an ordinary command at its deadline: SIGKILL after the grace when it ignores SIGTERM, exit code 124", async () => {
    const supervisor = supervisorFor({ executionTimeoutMs: 300, killGraceMs: 200 });
    const marker = uniqueMarker();
    const started = Date.now();
    const info = await supervisor.spawn(shellCommand("s1", `trap '' TERM; echo $$; sleep ${marker}`));
    expect(Date.parse(info.deadlineAt ?? "") - Date.parse(info.startedAt)).toBe(300);
    const waited = await supervisor.waitFor(info.commandId, { untilMs: 10_000 });
    expect(waited).toMatchObject({ state: "ended", result: { outcome: "timeout", exitCode: 124, signal: "SIGKILL" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
    expect(await processesWithMarker(marker)).toEqual([]);
  });

  it("keeps the deadline with nobody waiting", async () => {
    const supervisor = supervisorFor({ executionTimeoutMs: 150, killGraceMs: 200 });
    const started = Date.now();
    const { commandId } = await supervisor.spawn(shellCommand("s1", "sleep 30"));
    // Looking at the record now and then is not waiting on the command.
    while (supervisor.get(commandId)?.state === "running" && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(supervisor.get(commandId)).toMatchObject({
      state: "ended",
      result: { outcome: "timeout", exitCode: 124, signal: "SIGTERM" },
    });
  });

  it("gives a session-lifetime command no execution timer", async () => {
    const supervisor = supervisorFor({ executionTimeoutMs: 100, killGraceMs: 200 });
    const info = await supervisor.spawn(shellCommand("s1", "sleep 30", { lifetime: "session" }));
    expect(info).toMatchObject({ lifetime: "session", deadlineAt: null });
    expect(await supervisor.waitFor(info.commandId, { untilMs: 400 })).toEqual({
      state: "running",
      wokenBy: "deadline",
    });
    expect(await supervisor.stop(info.commandId)).toMatchObject({ outcome: "stop", signal: "SIGTERM" });
  });

  it("stops a process tree and resolves only once every process of it is gone", async () => {
    const supervisor = supervisorFor({ killGraceMs: 200 });
    const marker = uniqueMarker();
    // Three levels, and one child that ignores SIGTERM, so only the SIGKILL after the grace ends it.
    const inner = `sleep ${marker} & echo $!; (trap "" TERM; exec sleep ${marker}) & echo $!; wait`;
    const { commandId } = await supervisor.spawn(
      shellCommand("s1", `echo $$; sh -c '${inner}' & echo $!; sleep ${marker} & echo $!; wait`, {
        lifetime: "session",
      }),
    );
    const pids = printedPids(await readStdoutUntil(supervisor, commandId, pidCount(5)));
    expect(await stillRunning(pids)).toEqual(pids);
    const started = Date.now();
    const result = await supervisor.stop(commandId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(result).toMatchObject({ commandId, outcome: "stop" });
    expect(await stillRunning(pids)).toEqual([]);
    expect(await processesWithMarker(marker)).toEqual([]);
    // Stopping what has ended signals nothing and returns the same result.
    expect(await supervisor.stop(commandId)).toBe(result);
  });

  it("ends what left the command's group for a session of its own, as bubblewrap's --new-session does", async () => {
    const supervisor = supervisorFor({ killGraceMs: 200 });
    const marker = uniqueMarker();
    // A child in a new session with a child of its own: the parent dying must not leave them.
    const escaped = `setsid sh -c 'sleep ${marker} & echo $!; wait' & wait`;
    const { commandId } = await supervisor.spawn(shellCommand("s1", escaped, { lifetime: "session" }));
    const pids = printedPids(await readStdoutUntil(supervisor, commandId, pidCount(1)));
    expect(await stillRunning(pids)).toEqual(pids);
    expect((await processesWithMarker(marker)).length).toBeGreaterThan(0);
    await supervisor.stop(commandId);
    expect(await stillRunning(pids)).toEqual([]);
    expect(await processesWithMarker(marker)).toEqual([]);
  });

  it("ends the jobs a command left running when it exits by itself", async () => {
    const supervisor = supervisorFor();
    const marker = uniqueMarker();
    const { commandId } = await supervisor.spawn(shellCommand("s1", `sleep ${marker} & echo $!; exit 3`));
    const waited = await supervisor.waitFor(commandId, { untilMs: 10_000 });
    expect(waited).toMatchObject({ state: "ended", result: { outcome: "exit", exitCode: 3 } });
    const pids = printedPids(waited.state === "ended" ? waited.result.stdout.text : "");
    expect(pids).toHaveLength(1);
    expect(await stillRunning(pids)).toEqual([]);
    expect(await processesWithMarker(marker)).toEqual([]);
  });

  it("kills the group with outcome cleanup when the spawn's signal aborts", async () => {
    const supervisor = supervisorFor();
    const controller = new AbortController();
    const { commandId } = await supervisor.spawn(shellCommand("s1", "sleep 30", { signal: controller.signal }));
    expect(supervisor.liveCount("s1")).toBe(1);
    controller.abort();
    const waited = await supervisor.waitFor(commandId, { untilMs: 10_000 });
    expect(waited).toMatchObject({ state: "ended", result: { outcome: "cleanup", exitCode: null, signal: "SIGTERM" } });
    expect(supervisor.liveCount("s1")).toBe(0);
  });

  it("spawns nothing when the signal has already aborted", async () => {
    const supervisor = supervisorFor();
    const failure = await supervisor
      .spawn(shellCommand("s1", "sleep 30", { signal: AbortSignal.abort() }))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "command_aborted" });
    expect(supervisor.list("s1")).toEqual([]);
  });
});

describe("killOwner", () => {
  it("ends every group of the owner, a spawning tree of 50 nested shells included, and nothing else", async () => {
    const supervisor = supervisorFor({ killGraceMs: 200 });
    const marker = uniqueMarker();
    // Each level prints its pid, starts the next level in the background, then becomes `sleep`.
    const level = `echo $$; if [ "$1" -gt 0 ]; then sh -c "$0" "$0" $(($1 - 1)) & fi; exec sleep ${marker}`;
    const tree = await supervisor.spawn(shellCommand("s1", `sh -c '${level}' '${level}' 50 & wait`));
    const other = await supervisor.spawn(shellCommand("s1", `sleep ${marker}`, { lifetime: "session" }));
    const foreign = await supervisor.spawn(shellCommand("s2", "sleep 30", { lifetime: "session" }));
    const pids = printedPids(await readStdoutUntil(supervisor, tree.commandId, pidCount(51)));
    expect(pids).toHaveLength(51);
    expect(await stillRunning(pids)).toEqual(pids);
    const results = await supervisor.killOwner("s1");
    expect(results.map((result) => [result.commandId, result.outcome])).toEqual([
      [tree.commandId, "cleanup"],
      [other.commandId, "cleanup"],
    ]);
    expect(await stillRunning(pids)).toEqual([]);
    expect(await processesWithMarker(marker)).toEqual([]);
    // The owner's records are released; another owner's command is untouched.
    expect(supervisor.list("s1")).toEqual([]);
    expect(supervisor.get(foreign.commandId)?.state).toBe("running");
  });

  it("also ends a command whose spawn is under way", async () => {
    const supervisor = supervisorFor();
    const spawning = supervisor.spawn(shellCommand("s1", "sleep 30"));
    const results = await supervisor.killOwner("s1");
    const info = await spawning;
    expect(results).toMatchObject([{ commandId: info.commandId, outcome: "cleanup" }]);
    expect(supervisor.liveCount("s1")).toBe(0);
  });
});
