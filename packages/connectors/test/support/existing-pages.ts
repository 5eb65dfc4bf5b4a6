// Loopback HTTP servers for the existing-tab tests: named pages, a request count each.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A running page server. */
export interface PageServer {
  /** `http://<host>:<port>`. */
  readonly origin: string;
  /** Requests seen, by path. */
  readonly requests: Map<string, number>;
  close(): Promise<void>;
}

/** Serves `pages` (path → HTML) on `host`; any other path is a 404. */
export async function startPageServer(
  host: string,
  pages: Record<string, string | (() => string)>,
): Promise<PageServer> {
  const requests = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const page = pages[path];
    if (page === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(typeof page === "function" ? page() : page);
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
