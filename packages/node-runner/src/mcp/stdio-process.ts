import { type ChildProcess, spawn } from "node:child_process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { guardGroup, unguardGroup } from "../commands/supervisor/exit-guard.js";
import { signalGroup, terminateGroup } from "../commands/supervisor/process-group.js";

/** Bytes of the server's stderr kept, for error results and start failures. */
export const stderrTailBytes = 8_192;
/** How long a closing server has after its stdin ends, and again after SIGTERM. */
export const closeGraceMs = 2_000;

/** How the server process ended. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * An MCP server Castellan spawns itself (no shell), detached as the leader of its own process
 * group, and the SDK transport over its stdio. The SDK's own stdio transport signals only its
 * direct child; this one ends the whole group: stdin ends, then SIGTERM to the group after
 * 2,000 ms, then SIGKILL after 2,000 ms more, and the host's `exit` kills the group too.
 */
export class StdioServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** Bytes of stdout after the last complete line. */
  #pending = Buffer.alloc(0);
  #child: ChildProcess | undefined;
  #stderr = Buffer.alloc(0);
  #exit: ServerExit | undefined;
  #exited: Promise<ServerExit> | undefined;
  #closing: Promise<void> | undefined;

  constructor(
    private readonly spec: {
      readonly command: string;
      readonly args: readonly string[];
      readonly cwd: string | undefined;
      readonly env: Readonly<Record<string, string>>;
    },
  ) {}

  /** The last 8 KiB of the server's stderr, as text. */
  get stderrTail(): string {
    return this.#stderr.toString("utf8");
  }

  /** How the process ended; undefined while it runs. */
  get exit(): ServerExit | undefined {
    return this.#exit;
  }

  /** The group id (the leader's pid), once spawned. */
  get processGroupId(): number | undefined {
    return this.#child?.pid;
  }

  /** Resolves with how the process ended (never rejects). */
  get exited(): Promise<ServerExit> {
    return this.#exited ?? Promise.resolve({ code: null, signal: null });
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, [...this.spec.args], {
        cwd: this.spec.cwd,
        env: { ...this.spec.env },
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
      });
      this.#child = child;
      if (child.pid !== undefined) guardGroup(child.pid);
      this.#exited = new Promise((settle) => {
        child.once("exit", (code, signal) => {
          this.#exit = { code, signal };
          if (child.pid !== undefined && !signalGroup(child.pid, 0)) unguardGroup(child.pid);
          settle(this.#exit);
          this.onclose?.();
        });
      });
      child.once("error", (error) => {
        if (child.pid === undefined) {
          this.#exit = { code: null, signal: null };
          reject(error);
        } else this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      // One JSON-RPC message a line.
      child.stdout?.on("data", (chunk: Buffer) => {
        let buffer = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
        for (let newline = buffer.indexOf(10); newline !== -1; newline = buffer.indexOf(10)) {
          const line = buffer.subarray(0, newline).toString("utf8").replace(/\r$/, "");
          buffer = buffer.subarray(newline + 1);
          if (line.trim() === "") continue;
          let message: JSONRPCMessage;
          try {
            message = deserializeMessage(line);
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          this.onmessage?.(message);
        }
        this.#pending = Buffer.from(buffer);
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        const joined = Buffer.concat([this.#stderr, chunk]);
        this.#stderr = joined.length > stderrTailBytes ? joined.subarray(joined.length - stderrTailBytes) : joined;
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#exit || stdin.destroyed) return Promise.reject(new Error("The MCP server is not running."));
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends stdin, then the whole group: SIGTERM after 2,000 ms, SIGKILL 2,000 ms later; resolves once it is gone. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const child = this.#child;
    if (!child || child.pid === undefined) return;
    const groupId = child.pid;
    child.stdin?.end();
    if (!this.#exit) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, closeGraceMs)))]);
      clearTimeout(timer);
    }
    // Whatever the server left in its group (a grandchild) goes with it.
    if (signalGroup(groupId, 0)) await terminateGroup(groupId, closeGraceMs);
    unguardGroup(groupId);
    await this.exited;
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}
