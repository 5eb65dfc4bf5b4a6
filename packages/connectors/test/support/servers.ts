import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";

/** A handler of one path of a test server. */
export type PageHandler = (request: IncomingMessage, response: ServerResponse, server: TestServer) => void;

/** A loopback HTTP server that counts what reaches it. */
export interface TestServer {
  readonly origin: string;
  readonly port: number;
  /** Every request's path and query, in arrival order. */
  readonly requests: string[];
  /** WebSocket upgrades accepted. */
  upgrades: number;
  /** Adds or replaces a page. */
  page(path: string, handler: PageHandler | string): void;
  close(): Promise<void>;
}

/** Serves `html` as a page. */
export function html(body: string): PageHandler {
  return (_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(body);
  };
}

/**
 * Starts a server on `host` (127.0.0.1 or 127.0.0.2 for a second Origin). Unknown paths are
 * 404; held-open responses end when the server closes.
 */
export async function startServer(host = "127.0.0.1"): Promise<TestServer> {
  const pages = new Map<string, PageHandler>();
  const open = new Set<ServerResponse>();
  const sockets = new WebSocketServer({ noServer: true });
  const server: Server = createServer((request, response) => {
    self.requests.push(request.url ?? "");
    open.add(response);
    response.on("close", () => open.delete(response));
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const handler = pages.get(path);
    if (handler) handler(request, response, self);
    else {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found");
    }
  });
  server.on("upgrade", (request, socket, head) => {
    self.upgrades += 1;
    sockets.handleUpgrade(request, socket, head, (ws) => ws.send("hello"));
  });
  server.listen(0, host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const self: TestServer = {
    origin: `http://${host}:${port}`,
    port,
    requests: [],
    upgrades: 0,
    page(path, handler) {
      pages.set(path, typeof handler === "string" ? html(handler) : handler);
    },
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return self;
}
