import { realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isCastellanError } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { shellCommand, useSupervisors } from "../../../test/fixtures/command-processes.ts";
import { tempDirPerTest } from "../../../test/support/temp-dir.ts";

const supervisorFor = useSupervisors();
const directory = tempDirPerTest("castellan-commands-");

describe("a supervised command", () => {
  it("ends within the wait with its exit code and both streams", async () => {
    const supervisor = supervisorFor();
    const info = await supervisor.spawn(shellCommand("s1", "printf 'out\\n'; printf 'err\\n' >&2; exit 7"));
    expect(info).toMatchObject({ ownerKey: "s1", lifetime: "ordinary", state: "running" });
    expect(info.commandId).toMatch(/^cmd_[0-9a-f]{24}$/);
    const waited = await supervisor.waitFor(info.commandId, { untilMs: 10_000 });
    expect(waited.state).toBe("ended");
    const result = waited.state === "ended" ? waited.result : undefined;
    expect(result).toMatchObject({
      commandId: info.commandId,
      outcome: "exit",
      exitCode: 7,
      signal: null,
      stdout: { text: "out\n", bytes: 4, droppedBytes: 0 },
      stderr: { text: "err\n", bytes: 4, droppedBytes: 0 },
      startedAt: info.startedAt,
    });
    expect(Date.parse(result?.endedAt ?? "")).toBeGreaterThanOrEqual(Date.parse(info.startedAt));
    expect(supervisor.get(info.commandId)).toMatchObject({ state: "ended", result });
  });

  it("is still running at a wait's deadline, and a later wait returns its end", async () => {
    const supervisor = supervisorFor();
    const gate = join(directory.path, "go");
    const { commandId } = await supervisor.spawn(
      shellCommand("s1", `until [ -e '${gate}' ]; do sleep 0.01; done; echo done`),
    );
    const started = Date.now();
    expect(await supervisor.waitFor(commandId, { untilMs: 100 })).toEqual({ state: "running", wokenBy: "deadline" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(supervisor.get(commandId)?.state).toBe("running");
    await writeFile(gate, "");
    const waited = await supervisor.waitFor(commandId, { untilMs: 10_000 });
    expect(waited).toMatchObject({
      state: "ended",
      result: { outcome: "exit", exitCode: 0, stdout: { text: "done\n" } },
    });
  });

  it("wakes a wait on new output, and each poll returns only what is new", async () => {
    const supervisor = supervisorFor();
    const gate = join(directory.path, "go");
    const { commandId } = await supervisor.spawn(
      shellCommand("s1", `echo one; until [ -e '${gate}' ]; do sleep 0.01; done; echo two; echo warn >&2`),
    );
    expect(await supervisor.waitFor(commandId, { untilMs: 10_000, untilOutput: true })).toEqual({
      state: "running",
      wokenBy: "output",
    });
    expect(supervisor.readDelta(commandId)).toMatchObject({ stdout: { text: "one\n", bytes: 4 }, result: undefined });
    expect(supervisor.readDelta(commandId)).toMatchObject({ stdout: { text: "", bytes: 0 }, stderr: { text: "" } });
    // Nothing new: the wait runs to its deadline.
    expect(await supervisor.waitFor(commandId, { untilMs: 50, untilOutput: true })).toEqual({
      state: "running",
      wokenBy: "deadline",
    });
    await writeFile(gate, "");
    await supervisor.waitFor(commandId, { untilMs: 10_000 });
    const last = supervisor.readDelta(commandId);
    expect(last).toMatchObject({ stdout: { text: "two\n" }, stderr: { text: "warn\n" }, result: { outcome: "exit" } });
    // The result is the whole run, whatever the polls took.
    expect(last.result?.stdout.text).toBe("one\ntwo\n");
    expect(supervisor.readOutput(commandId).stdout.text).toBe("one\ntwo\n");
    expect(supervisor.readDelta(commandId).stdout.text).toBe("");
  });

  it("reads the whole run so far without consuming a delta", async () => {
    const supervisor = supervisorFor();
    const { commandId } = await supervisor.spawn(shellCommand("s1", "echo ready; sleep 30", { lifetime: "session" }));
    expect(await supervisor.waitFor(commandId, { untilMs: 10_000, untilOutput: true })).toMatchObject({
      wokenBy: "output",
    });
    expect(supervisor.readOutput(commandId).stdout.text).toBe("ready\n");
    expect(supervisor.readDelta(commandId).stdout.text).toBe("ready\n");
    expect(supervisor.readOutput(commandId).stdout.text).toBe("ready\n");
  });

  it("reports a leader killed by a signal from elsewhere as outcome signal", async () => {
    const supervisor = supervisorFor();
    const { commandId } = await supervisor.spawn(shellCommand("s1", "echo before; kill -USR1 $$; sleep 5"));
    const waited = await supervisor.waitFor(commandId, { untilMs: 10_000 });
    expect(waited).toMatchObject({
      state: "ended",
      result: { outcome: "signal", exitCode: null, signal: "SIGUSR1", stdout: { text: "before\n" } },
    });
  });

  it("runs with exactly the given environment and directory, and stdin at /dev/null", async () => {
    const supervisor = supervisorFor();
    const cwd = await realpath(directory.path);
    const script = 'echo "$ONLY|$HOME|"; pwd -P; cat; echo end';
    for (const place of [cwd, pathToFileURL(`${cwd}/`)]) {
      const { commandId } = await supervisor.spawn(
        shellCommand("s1", script, { cwd: place, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ONLY: "this" } }),
      );
      const waited = await supervisor.waitFor(commandId, { untilMs: 10_000 });
      expect(waited).toMatchObject({
        state: "ended",
        result: { exitCode: 0, stdout: { text: `this||\n${cwd}\nend\n` } },
      });
    }
  });

  it("passes the shell's own arguments before the command text", async () => {
    const supervisor = supervisorFor();
    const { commandId } = await supervisor.spawn(
      shellCommand("s1", "echo $-", { shell: { executable: "sh", arguments: ["-e", "-u", "-c"] } }),
    );
    const waited = await supervisor.waitFor(commandId, { untilMs: 10_000 });
    const flags = waited.state === "ended" ? waited.result.stdout.text : "";
    expect(flags).toContain("e");
    expect(flags).toContain("u");
  });

  it("refuses to spawn when the shell or the directory is missing, and counts nothing live", async () => {
    const supervisor = supervisorFor();
    const attempts = [
      shellCommand("s1", "true", { shell: { executable: "/nonexistent/sh", arguments: ["-c"] } }),
      shellCommand("s1", "true", { cwd: join(directory.path, "missing") }),
      shellCommand("s1", "true", { env: { BAD: "a\u0000b" } }),
    ];
    for (const request of attempts) {
      const failure = await supervisor.spawn(request).catch((error: unknown) => error);
      expect(isCastellanError(failure, "command_spawn_failed"), String(failure)).toBe(true);
    }
    expect(supervisor.liveCount("s1")).toBe(0);
    expect(supervisor.list("s1")).toEqual([]);
  });
});
