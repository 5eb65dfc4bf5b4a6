// The loopback model server of the providers bench. It answers every request from the request
// alone: it parses the JSON body, reads the Run's length from the first user message ("Tick N
// times.") and the turn from the number of conversation messages, and streams that turn's
// answer in one write. So a Castellan Run and the bare loop get the same work from it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sseAnswer, type WireFormat, wirePaths } from "./answers.ts";

/** What the server saw since it started (or was last reset). */
export interface ServerStats {
  readonly requests: number;
  /** Byte length of each request body, in arrival order. */
  readonly bodyBytes: readonly number[];
  /** The request bodies themselves, only when the server was started with `keepBodies`. */
  readonly bodies: readonly string[];
}

export interface FixtureServer {
  readonly url: string;
  stats(): ServerStats;
  reset(): void;
  close(): Promise<void>;
}

/**
 * The conversation messages of a request body, without system or developer messages: turn t of
 * a Run sees the user message and one assistant message and one tool result per finished turn.
 */
export function conversationLength(format: WireFormat, body: Record<string, unknown>): number {
  const list = format === "responses" ? body.input : body.messages;
  if (!Array.isArray(list)) throw new Error(`The ${format} request has no message list.`);
  if (format !== "chat") return list.length;
  let count = 0;
  for (const message of list) if (message.role !== "system" && message.role !== "developer") count++;
  return count;
}

/** The turn a conversation of `length` messages asks for. */
export function turnOfLength(length: number): number {
  if (length % 2 !== 1) throw new Error(`A conversation of ${length} messages is not between turns.`);
  return (length + 1) / 2;
}

const turnsPattern = /Tick (\d+) times\./;

/** Answers one request body with its SSE stream, or throws on a request it cannot place. */
export function answerBody(format: WireFormat, text: string): string {
  const body = JSON.parse(text) as Record<string, unknown>;
  const turns = Number(turnsPattern.exec(text)?.[1]);
  if (!Number.isInteger(turns)) throw new Error("The request names no Run length (Tick N times.).");
  const turn = turnOfLength(conversationLength(format, body));
  if (turn > turns) throw new Error(`Turn ${turn} of a Run of ${turns}.`);
  return sseAnswer(format, { turn, turns });
}

/** Starts the server on a free loopback port; `url` is its root (paths as in `wirePaths`). */
export async function startFixtureServer(
  format: WireFormat,
  options: { readonly keepBodies?: boolean } = {},
): Promise<FixtureServer> {
  let bodyBytes: number[] = [];
  let bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const bytes = Buffer.concat(chunks);
      bodyBytes.push(bytes.length);
      const text = bytes.toString("utf8");
      if (options.keepBodies) bodies.push(text);
      let answer: string;
      try {
        if (request.method !== "POST" || request.url !== wirePaths[format]) {
          throw new Error(`No route ${request.method} ${request.url}.`);
        }
        answer = answerBody(format, text);
      } catch (error) {
        response.writeHead(400, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { type: "invalid_request_error", message: String(error) } }));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ requests: bodyBytes.length, bodyBytes, bodies }),
    reset() {
      bodyBytes = [];
      bodies = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
