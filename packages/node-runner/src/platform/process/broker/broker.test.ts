// The spawn broker: commands are forked by a small helper process, never by this one (a fork
// copies the forking process's page tables, so from a large host it blocks its thread for a
// time that grows with the host's memory). Output, exit codes and groups as before; a foreign
// connection to the stdio socket takes no stream; a broker that dies fails nothing silently
// and is replaced; a host killed outright leaves no command behind.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  processesWithMarker,
  shellCommand,
  stillRunning,
  uniqueMarker,
  useSupervisors,
} from "../../../../test/fixtures/command-processes.ts";
import { spawnBrokerAvailable, spawnBrokerState } from "./client.js";

const supervisorFor = useSupervisors();
const hostFixture = fileURLToPath(new URL("../../../../test/fixtures/command-host-exit.ts", import.meta.url));

/** The parent pid of `pid`, from /proc. */
async function parentOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

describe("the spawn broker", () => {
  it("is built, and forks every command in its own process, not this one", async () => {
    expect(spawnBrokerAvailable()).toBe(true);
    const supervisor = supervisorFor();
    const info = await supervisor.spawn(
      shellCommand("s1", "echo $PPID; head -c 300000 /dev/zero | tr '\\0' x; exit 5"),
    );
    const waited = await supervisor.waitFor(info.commandId, { untilMs: 10_000 });
    const result = waited.state === "ended" ? waited.result : undefined;
    expect(result).toMatchObject({ outcome: "exit", exitCode: 5 });
    const broker = spawnBrokerState();
    expect(broker?.pid).toBeGreaterThan(0);
    const [parent] = (result?.stdout.text ?? "").split("\n");
    expect(Number(parent)).toBe(broker?.pid);
    expect(Number(parent)).not.toBe(process.pid);
    expect(await parentOf(broker?.pid as number)).toBe(process.pid);
    // Every byte arrived (the capture keeps a bounded view of them).
    expect(result?.stdout.bytes).toBe((parent?.length ?? 0) + 1 + 300_000);
  });

  it("gives a connection that names no command's token no stream, and drops it", async () => {
    const supervisor = supervisorFor();
    const info = await supervisor.spawn(shellCommand("s1", "sleep 0.3; echo mine"));
    const broker = spawnBrokerState();
    const foreign = connect(broker?.stdioPath as string);
    await new Promise<void>((resolve, reject) => {
      foreign.once("connect", () => resolve());
      foreign.once("error", reject);
    });
    foreign.write(`${"0".repeat(32)} stdout\nforged output\n`);
    const closed = await new Promise<boolean>((resolve) => {
      foreign.once("close", () => resolve(true));
      setTimeout(() => resolve(false), 5_000);
    });
    expect(closed).toBe(true);
    const waited = await supervisor.waitFor(info.commandId, { untilMs: 10_000 });
    expect(waited.state === "ended" ? waited.result.stdout.text : "").toBe("mine\n");
  });

  it("reads a running command as killed when the broker dies, ends its group, and starts a new broker", async () => {
    const supervisor = supervisorFor();
    const marker = uniqueMarker();
    const info = await supervisor.spawn(shellCommand("s1", `sleep ${marker}`));
    const first = spawnBrokerState()?.pid as number;
    process.kill(first, "SIGKILL");
    const waited = await supervisor.waitFor(info.commandId, { untilMs: 10_000 });
    expect(waited).toMatchObject({ state: "ended", result: { outcome: "signal", signal: "SIGKILL" } });
    expect(await processesWithMarker(marker)).toEqual([]);
    const next = await supervisor.spawn(shellCommand("s1", "echo again"));
    const again = await supervisor.waitFor(next.commandId, { untilMs: 10_000 });
    expect(again.state === "ended" ? again.result.stdout.text : "").toBe("again\n");
    expect(spawnBrokerState()?.pid).not.toBe(first);
  });

  it("ends every command of a host that was killed outright, which runs no exit listener", async () => {
    const marker = uniqueMarker();
    const host = spawn(process.execPath, [hostFixture, marker, "hold"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      let stdout = "";
      host.stdout.setEncoding("utf8");
      const printed = await new Promise<string>((resolve, reject) => {
        host.stdout.on("data", (text: string) => {
          stdout += text;
          if (stdout.includes("\n")) resolve(stdout);
        });
        host.once("exit", (code) => reject(new Error(`the host exited ${code} before printing`)));
      });
      const { pids } = JSON.parse(printed) as { pids: number[] };
      expect(await stillRunning(pids)).toHaveLength(3);
      host.kill("SIGKILL");
      const deadline = Date.now() + 5_000;
      while ((await stillRunning(pids)).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await stillRunning(pids)).toEqual([]);
      expect(await processesWithMarker(marker)).toEqual([]);
    } finally {
      host.kill("SIGKILL");
      for (const pid of await processesWithMarker(marker)) process.kill(pid, "SIGKILL");
    }
  });
});
