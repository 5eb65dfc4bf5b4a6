// The spawn broker's process: a small Node process that forks commands for a large host. A
// fork copies the forking process's page tables, so its cost grows with the process's memory
// (tens of milliseconds for a host of a few hundred MiB, all of it blocking that thread); forked
// from here it stays about a millisecond. Started by the host with its IPC channel and the
// path of the host's stdio socket as argv[2] and the niceness of its commands as argv[3]; compiled to dist/platform/process/broker/broker.js.
import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { setPriority } from "node:os";
import type { Readable } from "node:stream";
import {
  identifyNamespaceInit,
  killNamespaceInit,
  type NamespaceInit,
  readNamespaceReport,
  stdioWithReport,
  stillRunning,
} from "../namespace-init.js";
import { escapedGroupsSync } from "../process-group.js";
import { type BrokerEvent, type BrokerSpawnMessage, outputHeader } from "./protocol.js";

const stdioPath = process.argv[2];
if (!stdioPath || !process.send) throw new Error("The spawn broker runs only as a child with an IPC channel.");
// The host's background niceness, taken before any command exists, so every command inherits it.
const niceness = Number(process.argv[3] ?? 0);
if (Number.isInteger(niceness) && niceness > 0) setPriority(0, niceness);

/** The groups this broker started that have not exited: SIGKILLed if the host goes away. */
const live = new Set<number>();
/**
 * The namespace inits reported by this broker's commands, by token, kept while they run (even
 * past their leader's exit, until the host has ended them): SIGKILLed if the host goes away.
 */
const inits = new Map<string, NamespaceInit>();

const send = (event: BrokerEvent) => {
  if (process.connected) process.send?.(event);
};

/** A socket to the host's stdio socket, its header written. */
function outputSocket(token: string, stream: "stdout" | "stderr"): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(stdioPath as string);
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.write(outputHeader(token, stream), (error) => (error ? reject(error) : resolve(socket)));
    });
  });
}

async function start(message: BrokerSpawnMessage): Promise<void> {
  let sockets: Socket[];
  try {
    sockets = await Promise.all([outputSocket(message.token, "stdout"), outputSocket(message.token, "stderr")]);
  } catch (error) {
    send({ type: "failed", token: message.token, message: (error as Error).message });
    return;
  }
  const [stdout, stderr] = sockets as [Socket, Socket];
  // Never read here: the command's output goes to the host, which is the sockets' other end.
  stdout.pause();
  stderr.pause();
  const release = () => {
    stdout.destroy();
    stderr.destroy();
  };
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(message.executable, [...message.args], {
      cwd: message.cwd,
      env: { ...message.env },
      detached: true,
      stdio: withReport(stdout, stderr, message.pidNamespaceReportFd),
    });
  } catch (error) {
    release();
    send({ type: "failed", token: message.token, message: (error as Error).message });
    return;
  }
  child.once("spawn", () => {
    // The command holds its own copies; the broker's go now.
    release();
    if (child.pid !== undefined) live.add(child.pid);
    send({ type: "spawned", token: message.token, pid: child.pid as number });
    const reportFd = message.pidNamespaceReportFd;
    if (reportFd === undefined) return;
    void readNamespaceReport(child.stdio[reportFd] as Readable | null).then(async (pid) => {
      const init = pid === undefined ? undefined : await identifyNamespaceInit(pid);
      for (const [token, known] of inits) if (!stillRunning(known)) inits.delete(token);
      if (init) inits.set(message.token, init);
      send({ type: "reported", token: message.token, pid: pid ?? null });
    });
  });
  child.once("error", (error: NodeJS.ErrnoException) => {
    release();
    send({
      type: "failed",
      token: message.token,
      message: error.message,
      ...(error.code !== undefined ? { code: error.code } : {}),
    });
  });
  child.once("exit", (code, signal) => {
    if (child.pid !== undefined) live.delete(child.pid);
    send({ type: "exited", token: message.token, code, signal });
  });
}

process.on("message", (message: BrokerSpawnMessage) => {
  if (message?.type === "spawn") void start(message);
});

// The host is gone (it exited, or was killed outright): nothing it started outlives it.
process.on("disconnect", () => {
  // A namespace's init first: killed, it takes its whole namespace with it.
  for (const init of inits.values()) killNamespaceInit(init);
  // What left a group (a sandbox's own session) is listed first: killed, its members leave it orphaned.
  for (const group of [...live].flatMap((leader) => [leader, ...escapedGroupsSync(leader)])) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {}
  }
  process.exit(0);
});

/** The command's stdio: /dev/null, the two output sockets, and a pipe at `reportFd` when asked. */
function withReport(stdout: Socket, stderr: Socket, reportFd: number | undefined): (Socket | "ignore" | "pipe")[] {
  const stdio: (Socket | "ignore" | "pipe")[] = stdioWithReport(reportFd);
  stdio[1] = stdout;
  stdio[2] = stderr;
  return stdio;
}
