// A loopback DevTools proxy between the adapter and Chromium that logs every command the
// adapter sends and when its answer came back, so tests can read the protocol traffic.
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";

/** One command through the proxy. */
export interface LoggedCommand {
  readonly id: number;
  readonly method: string;
  readonly params: Record<string, any>;
  readonly sessionId: string | undefined;
  /** Order numbers: when the command was sent, and when its answer passed back (undefined until then). */
  readonly sentAt: number;
  answeredAt: number | undefined;
  /** The answer's result (undefined for an error or while pending). */
  result: Record<string, any> | undefined;
}

/** A running proxy. */
export interface CdpProxy {
  /** The browser-level URL to connect to instead of Chromium's. */
  readonly endpoint: string;
  /** Every command, in the order sent. */
  readonly commands: LoggedCommand[];
  /** A clock of the traffic: each command and answer takes the next tick. */
  tick(): number;
  /** Holds back Chromium's answers to `method` until the returned function is called. */
  hold(method: string): () => void;
  /** Open client connections. */
  connections(): number;
  close(): Promise<void>;
}

/** Starts a proxy to `upstream` (Chromium's browser-level URL) on 127.0.0.1. */
export async function startCdpProxy(upstream: string): Promise<CdpProxy> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const commands: LoggedCommand[] = [];
  let clock = 0;
  const sockets = new Set<WebSocket>();
  const held = new Map<string, (() => void)[]>();
  server.on("connection", (client) => {
    sockets.add(client);
    const pending = new Map<number, LoggedCommand>();
    const queued: string[] = [];
    const browser = new WebSocket(upstream);
    sockets.add(browser);
    browser.on("open", () => {
      for (const message of queued.splice(0)) browser.send(message);
    });
    client.on("message", (data) => {
      const text = data.toString();
      const message = JSON.parse(text);
      const command: LoggedCommand = {
        id: message.id,
        method: message.method,
        params: message.params ?? {},
        sessionId: message.sessionId,
        sentAt: ++clock,
        answeredAt: undefined,
        result: undefined,
      };
      commands.push(command);
      pending.set(message.id, command);
      if (browser.readyState === WebSocket.OPEN) browser.send(text);
      else queued.push(text);
    });
    browser.on("message", (data) => {
      const text = data.toString();
      const message = JSON.parse(text);
      const forward = () => {
        if (client.readyState === WebSocket.OPEN) client.send(text);
      };
      if (typeof message.id === "number") {
        const command = pending.get(message.id);
        const queue = command ? held.get(command.method) : undefined;
        if (command && queue) {
          queue.push(forward);
          return;
        }
        if (command) {
          command.answeredAt = ++clock;
          command.result = message.result;
          pending.delete(message.id);
        }
      }
      forward();
    });
    const end = () => {
      client.close();
      browser.close();
      sockets.delete(client);
      sockets.delete(browser);
    };
    client.on("close", end);
    browser.on("close", end);
    client.on("error", end);
    browser.on("error", end);
  });
  const { port } = server.address() as AddressInfo;
  const path = new URL(upstream).pathname;
  return {
    endpoint: `ws://127.0.0.1:${port}${path}`,
    commands,
    tick: () => ++clock,
    hold(method) {
      const queue: (() => void)[] = [];
      held.set(method, queue);
      return () => {
        held.delete(method);
        for (const forward of queue.splice(0)) forward();
      };
    },
    connections: () =>
      [...sockets].filter((socket) => server.clients.has(socket) && socket.readyState === WebSocket.OPEN).length,
    async close() {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The logged commands a selected tab must never be sent: emulation, download behaviour, persistent scripts, Browser.*. */
export function forbiddenMethods(commands: readonly LoggedCommand[]): string[] {
  return commands
    .map((command) => command.method)
    .filter(
      (method) =>
        method.startsWith("Emulation.") ||
        method.startsWith("Browser.") ||
        method === "Page.addScriptToEvaluateOnNewDocument" ||
        method === "Target.createTarget" ||
        method === "Target.activateTarget",
    );
}
