import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { guardGroup, unguardGroup } from "../../platform/process/exit-guard.js";
import { signalGroup, terminateGroup } from "../../platform/process/process-group.js";
import { McpMessageTooLargeError } from "./errors.js";
import { LineReader, maxMessageBytes } from "./line-reader.js";
import { mcpSdk } from "./sdk.js";

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
 * Stdout is read linearly with a bound on one message line (`maxMessageBytes`, default 10 MiB,
 * as the SDK's own transport): a server over it is stopped at once (SIGTERM and SIGKILL to its
 * group with no grace), `tooLarge` holds the McpMessageTooLargeError, and `onerror` gets it.
 */
export class StdioServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #reader: LineReader;
  #tooLarge: McpMessageTooLargeError | undefined;
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
      /** The server's name, for the errors it causes. */
      readonly serverName: string;
      /** Bytes one stdout line may hold; default 10 MiB. */
      readonly maxMessageBytes?: number;
    },
  ) {
    this.#reader = new LineReader(spec.maxMessageBytes ?? maxMessageBytes);
  }

  /** Set once the server sent a line over the bound (and was stopped for it). */
  get tooLarge(): McpMessageTooLargeError | undefined {
    return this.#tooLarge;
  }

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
        const within = this.#reader.push(chunk, (line) => {
          if (line.trim() === "") return;
          let message: JSONRPCMessage;
          try {
            message = mcpSdk().deserializeMessage(line);
          } catch (error) {
            this.onerror?.(error as Error);
            return;
          }
          this.onmessage?.(message);
        });
        if (!within && !this.#tooLarge) this.#misbehaved(child);
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        const joined = Buffer.concat([this.#stderr, chunk]);
        this.#stderr = joined.length > stderrTailBytes ? joined.subarray(joined.length - stderrTailBytes) : joined;
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
    });
  }

  /** A line went over the bound: nothing more is read, and the whole group ends now, without grace. */
  #misbehaved(child: ChildProcess): void {
    this.#tooLarge = new McpMessageTooLargeError(this.spec.serverName, this.#reader.maxLineBytes);
    child.stdout?.pause();
    child.stdout?.removeAllListeners("data");
    this.onerror?.(this.#tooLarge);
    this.#closing ??= (async () => {
      const groupId = child.pid;
      if (groupId === undefined) return;
      if (signalGroup(groupId, 0)) await terminateGroup(groupId, 0);
      unguardGroup(groupId);
      await this.exited;
      child.stdout?.destroy();
      child.stderr?.destroy();
    })();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#exit || stdin.destroyed) return Promise.reject(new Error("The MCP server is not running."));
    return new Promise((resolve, reject) => {
      stdin.write(mcpSdk().serializeMessage(message), (error) => (error ? reject(error) : resolve()));
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
