// A local HTTP server for adapter tests: it records every request and answers with what the
// test's handler writes, so adapters are tested against the providers' real wire format on
// loopback, with no credentials and no network.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the fixture received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  /** The body parsed as JSON, when it is JSON. */
  readonly json: unknown;
}

/** Answers one request. */
export type FixtureHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

/** A running fixture server. */
export interface HttpFixture {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Replaces the handler for the next requests. */
  handle(handler: FixtureHandler): void;
  /** Closes the server and every open connection. */
  close(): Promise<void>;
}

/** Starts a fixture server on a free loopback port. */
export async function startHttpFixture(handler: FixtureHandler): Promise<HttpFixture> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const url = new URL(incoming.url ?? "/", "http://fixture");
    const request: RecordedRequest = {
      method: incoming.method ?? "GET",
      path: `${url.pathname}${url.search}`,
      headers: incoming.headers,
      body,
      json,
    };
    requests.push(request);
    try {
      await current(request, response);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One server-sent event. `event` is omitted for `data:`-only streams (OpenAI style). */
export interface SseEvent {
  readonly event?: string;
  /** A string is sent as is; anything else as JSON. */
  readonly data: unknown;
}

/** Writes a JSON answer. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/**
 * Writes an SSE stream. `disconnectAfter` destroys the socket after that many events (a
 * mid-stream disconnect); `truncate` ends the response cleanly but early without a terminal
 * event being required by the caller to have been sent; `hold` keeps the stream open after the
 * events until the client goes away.
 */
export async function sendSse(
  response: ServerResponse,
  events: readonly SseEvent[],
  options: {
    readonly disconnectAfter?: number;
    readonly hold?: boolean;
    readonly headers?: Record<string, string>;
  } = {},
): Promise<void> {
  // Listen before writing: a client that leaves mid-stream must still end a held stream.
  const closed = new Promise<void>((resolve) => response.on("close", () => resolve()));
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...(options.headers ?? {}),
  });
  let sent = 0;
  for (const event of events) {
    if (options.disconnectAfter !== undefined && sent >= options.disconnectAfter) {
      response.socket?.destroy();
      return;
    }
    const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
    response.write(`${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`);
    sent++;
    // Let each event reach the client as its own chunk, as a real stream does.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (options.disconnectAfter !== undefined && sent >= options.disconnectAfter) {
    response.socket?.destroy();
    return;
  }
  if (options.hold) {
    await closed;
    return;
  }
  response.end();
}
