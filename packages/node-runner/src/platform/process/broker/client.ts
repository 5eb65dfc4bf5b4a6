// The host's side of the spawn broker: one broker process per host process, started on the
// first command and replaced if it dies; each command it starts is a `BrokeredChild` whose
// stdout and stderr are the sockets the broker connected to the host's private stdio socket.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { existsSync, mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import { backgroundPriority } from "../background-priority.js";
import { spawnBrokerEntry } from "./entry.js";
import { type BrokerEvent, type BrokerSpawnMessage, maxHeaderBytes } from "./protocol.js";

/**
 * A command started by the broker, shaped as much like a `ChildProcess` as the supervisor
 * needs: `pid` once started, `stdout` and `stderr`, and the `spawn`, `error` and `exit` events.
 */
export class BrokeredChild extends EventEmitter {
  pid: number | undefined;
  readonly stdout = new (process.getBuiltinModule("node:stream").PassThrough)();
  readonly stderr = new (process.getBuiltinModule("node:stream").PassThrough)();
  readonly token: string;
  /** Sockets attached so far, and the exit held back until both are. */
  attached = 0;
  heldExit: readonly [number | null, NodeJS.Signals | null] | undefined;

  /** With a report descriptor: the init the broker read from it (see `DetachedProcess.namespaceInit`). */
  readonly namespaceInit: Promise<number | undefined> | undefined;
  /** Settles {@link namespaceInit}; later calls do nothing. */
  report: (pid: number | undefined) => void = () => undefined;

  /** Called once the exit is emitted: the command no longer needs its token. */
  readonly #settled: () => void;

  constructor(token: string, settled: () => void, withReport = false) {
    super();
    this.token = token;
    this.#settled = settled;
    if (withReport) {
      this.namespaceInit = new Promise((resolve) => {
        this.report = resolve;
      });
    }
  }

  /** Emits `exit` once both outputs are attached (or never will be), so no output is missed. */
  exit(code: number | null, signal: NodeJS.Signals | null, force = false): void {
    if (this.attached < 2 && !force) {
      this.heldExit = [code, signal];
      // A socket that never arrives does not hold the exit forever.
      setTimeout(() => this.heldExit && this.exit(code, signal, true), 5_000).unref();
      return;
    }
    this.heldExit = undefined;
    this.#settled();
    this.emit("exit", code, signal);
  }
}

interface Broker {
  readonly process: ChildProcess;
  readonly server: Server;
  readonly directory: string;
  readonly stdioPath: string;
  readonly children: Map<string, BrokeredChild>;
}

let current: Broker | undefined;

/** Routes one connection to its command's stream, by the token its header names. */
function accept(broker: Broker, socket: Socket): void {
  let head = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), 10_000);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf(10);
    if (end < 0) {
      if (head.length > maxHeaderBytes) socket.destroy();
      return;
    }
    socket.off("data", onData);
    clearTimeout(timer);
    const [token, stream] = head.subarray(0, end).toString("utf8").split(" ");
    const child = token === undefined ? undefined : broker.children.get(token);
    const target = stream === "stdout" ? child?.stdout : stream === "stderr" ? child?.stderr : undefined;
    // Only the host and the broker know a token, and each stream is taken once.
    if (!child || !target || (target as PassThrough & { attachedSocket?: Socket }).attachedSocket) {
      socket.destroy();
      return;
    }
    (target as PassThrough & { attachedSocket?: Socket }).attachedSocket = socket;
    const rest = head.subarray(end + 1);
    if (rest.length > 0) target.write(rest);
    socket.pipe(target);
    socket.on("error", () => target.end());
    target.once("close", () => socket.destroy());
    child.attached++;
    if (child.attached === 2 && child.heldExit) child.exit(...child.heldExit);
  };
  socket.on("data", onData);
  socket.on("error", () => undefined);
}

function startBroker(): Broker {
  const directory = mkdtempSync(join(tmpdir(), "castellan-spawn-"));
  const path = join(directory, "stdio.sock");
  const children = new Map<string, BrokeredChild>();
  const server = process.getBuiltinModule("node:net").createServer();
  const child = process
    .getBuiltinModule("node:child_process")
    .fork(spawnBrokerEntry(), [path, String(backgroundPriority())], {
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      execArgv: [],
      serialization: "json",
    });
  const broker: Broker = { process: child, server, directory, stdioPath: path, children };
  server.on("connection", (socket) => accept(broker, socket));
  server.listen(path);
  server.unref();
  child.on("message", (event: BrokerEvent) => {
    const target = children.get(event.token);
    if (!target) return;
    if (event.type === "spawned") {
      target.pid = event.pid;
      target.emit("spawn");
    } else if (event.type === "reported") {
      target.report(event.pid ?? undefined);
    } else if (event.type === "failed") {
      children.delete(event.token);
      release(broker);
      target.report(undefined);
      target.stdout.end();
      target.stderr.end();
      target.emit("error", Object.assign(new Error(event.message), event.code ? { code: event.code } : {}));
    } else {
      // The output sockets may still be on their way: the token stays known until they are in.
      target.exit(event.code, event.signal);
    }
  });
  // A broker that dies takes no command with it unnoticed: each one waiting fails, each running
  // one reads as killed (the supervisor then ends its group), and the next command starts a new broker.
  child.once("exit", () => {
    if (current === broker) current = undefined;
    server.close();
    void rm(directory, { recursive: true, force: true }).catch(() => undefined);
    for (const [token, target] of children) {
      children.delete(token);
      if (target.pid === undefined)
        target.emit("error", new Error("The spawn broker stopped before the command started."));
      else target.exit(null, "SIGKILL", true);
      // A report still on its way is lost with the broker; the group's own end covers the rest.
      target.report(undefined);
      target.stdout.end();
      target.stderr.end();
    }
  });
  child.on("error", () => undefined);
  child.unref();
  child.channel?.unref();
  return broker;
}

/** The channel keeps the host alive only while a command is starting or running. */
function release(broker: Broker): void {
  if (broker.children.size === 0) broker.process.channel?.unref();
}

/** True when the compiled broker is present (a source checkout that was never built has none). */
export function spawnBrokerAvailable(): boolean {
  return existsSync(spawnBrokerEntry());
}

/**
 * Starts `executable` with `args` through the broker: detached (its own process group), stdin
 * from /dev/null, exactly `env` and `cwd`, stdout and stderr read by this process.
 */
export function brokeredSpawn(
  executable: string,
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly env: Readonly<Record<string, string>>;
    readonly pidNamespaceReportFd?: number;
  },
): BrokeredChild {
  current ??= startBroker();
  const broker = current;
  const token = randomBytes(16).toString("hex");
  const reportFd = options.pidNamespaceReportFd;
  // The token is forgotten once the exit is out and the report (which may come after it) is in.
  let pending = reportFd === undefined ? 1 : 2;
  const forget = () => {
    if (--pending > 0) return;
    broker.children.delete(token);
    release(broker);
  };
  const child = new BrokeredChild(
    token,
    () => {
      forget();
      // A report that never comes (a process outside the group holds its descriptor) is given up.
      if (pending > 0) setTimeout(() => child.report(undefined), 5_000).unref();
    },
    reportFd !== undefined,
  );
  void child.namespaceInit?.then(forget);
  broker.children.set(token, child);
  broker.process.channel?.ref();
  const message: BrokerSpawnMessage = {
    type: "spawn",
    token,
    executable,
    args: [...args],
    cwd: options.cwd,
    env: { ...options.env },
    ...(reportFd !== undefined ? { pidNamespaceReportFd: reportFd } : {}),
  };
  broker.process.send(message, (error) => {
    if (!error || !broker.children.has(token)) return;
    broker.children.delete(token);
    release(broker);
    child.report(undefined);
    child.emit("error", error);
  });
  return child;
}

/** The running broker's pid and stdio socket, if one runs (for tests and diagnostics). */
export function spawnBrokerState(): { readonly pid: number | undefined; readonly stdioPath: string } | undefined {
  return current ? { pid: current.process.pid, stdioPath: current.stdioPath } : undefined;
}
