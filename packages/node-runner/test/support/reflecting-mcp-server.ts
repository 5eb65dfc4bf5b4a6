// A Streamable HTTP MCP server on 127.0.0.1 that reflects what it was sent: it answers
// JSON-RPC with plain JSON bodies (initialize, tools/list with one `echo` tool) and answers a
// 500 whose body quotes the request's Authorization header, whole and without its scheme,
// at `initialize` (mode "initialize") or at `tools/call` (mode "call"), as a careless server's
// error page does.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A running reflecting server; close it after the test. */
export interface ReflectingMcpServer {
  readonly url: string;
  close(): Promise<void>;
}

function reflect(request: IncomingMessage, response: ServerResponse): void {
  const authorization = String(request.headers.authorization ?? "");
  const bare = authorization.replace(/^\S+\s+/, "");
  response.writeHead(500, { "content-type": "text/plain" });
  response.end(`internal error: rejected the header "${authorization}" (token ${bare})`);
}

/** Starts the server on a free loopback port. */
export async function startReflectingMcpServer(mode: "initialize" | "call"): Promise<ReflectingMcpServer> {
  const server = createServer((request, response) => {
    if (request.method !== "POST") {
      // No standalone SSE stream and no session to delete.
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id?: number;
        method: string;
      };
      if (message.id === undefined) {
        response.writeHead(202).end();
        return;
      }
      if (message.method === "initialize" && mode === "initialize") return reflect(request, response);
      if (message.method === "tools/call" && mode === "call") return reflect(request, response);
      const result =
        message.method === "initialize"
          ? {
              protocolVersion: "2025-06-18",
              capabilities: { tools: {} },
              serverInfo: { name: "castellan-reflecting", version: "1.0.0" },
            }
          : message.method === "tools/list"
            ? { tools: [{ name: "echo", description: "Echoes", inputSchema: { type: "object" } }] }
            : { content: [{ type: "text", text: "unexpected" }] };
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
