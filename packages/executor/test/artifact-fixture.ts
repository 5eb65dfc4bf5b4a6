// A loopback artifact server for the context-image tests: `GET /artifacts/<id>` answers by the
// route the test gave that id (a file, a status, a gzip body whose length header is its
// compressed size, a length header with no body, an endless stream, or no answer at all),
// after checking the bearer token. Every request is logged with what was sent back.
import { createServer, type Server } from "node:http";
import { gzipSync } from "node:zlib";

/** How the fixture answers one artifact id. */
export type ArtifactRoute =
  | { readonly kind: "file"; readonly body: Buffer }
  | { readonly kind: "status"; readonly status: number }
  /** `body` gzipped: Content-Length says the compressed size, the decoded stream is larger. */
  | { readonly kind: "gzip"; readonly body: Buffer }
  /** Headers with this Content-Length, then no byte until the client gives up. */
  | { readonly kind: "declared"; readonly length: number }
  /** Chunks without a length, forever, until the client gives up. */
  | { readonly kind: "endless"; readonly chunkBytes: number }
  /** No answer at all until the client gives up. */
  | { readonly kind: "hang" };

/** One request the fixture saw. */
export interface ArtifactRequest {
  readonly path: string;
  readonly authorized: boolean;
  /** Body bytes written back so far. */
  bodyBytes: number;
  /** Settles when the exchange is over; true when the response was sent whole. */
  readonly done: Promise<boolean>;
}

/** A listening fixture; close it after the test. */
export interface ArtifactFixture {
  /** `http://127.0.0.1:<port>/artifacts`, without a trailing slash. */
  readonly url: string;
  readonly requests: ArtifactRequest[];
  close(): Promise<void>;
}

/** Starts a fixture on 127.0.0.1 and a free port serving `routes` by artifact id to bearer `token`. */
export async function startArtifactFixture(
  token: string,
  routes: (id: string) => ArtifactRoute | undefined,
): Promise<ArtifactFixture> {
  const requests: ArtifactRequest[] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://fixture.invalid").pathname;
    const authorized = request.headers.authorization === `Bearer ${token}`;
    let finish: (whole: boolean) => void = () => undefined;
    const entry: ArtifactRequest = {
      path,
      authorized,
      bodyBytes: 0,
      done: new Promise((resolve) => {
        finish = resolve;
      }),
    };
    requests.push(entry);
    response.on("close", () => finish(response.writableFinished));
    const send = (chunk: Buffer) => {
      entry.bodyBytes += chunk.length;
      return response.write(chunk);
    };
    const match = /^\/artifacts\/([^/]+)$/.exec(path);
    const route = match ? routes(decodeURIComponent(match[1]!)) : undefined;
    if (!authorized) {
      response.writeHead(401).end();
      return;
    }
    if (request.method !== "GET" || route === undefined) {
      response.writeHead(404).end();
      return;
    }
    switch (route.kind) {
      case "file":
        response.writeHead(200, { "content-type": "image/png", "content-length": route.body.length });
        send(route.body);
        response.end();
        return;
      case "status":
        response.writeHead(route.status).end();
        return;
      case "gzip": {
        const compressed = gzipSync(route.body);
        response.writeHead(200, { "content-encoding": "gzip", "content-length": compressed.length });
        send(compressed);
        response.end();
        return;
      }
      case "declared":
        response.writeHead(200, { "content-type": "image/png", "content-length": route.length });
        response.flushHeaders();
        return;
      case "endless": {
        response.writeHead(200, { "content-type": "image/png" });
        const chunk = Buffer.alloc(route.chunkBytes, 7);
        const pump = () => {
          while (!response.destroyed && send(chunk));
          if (!response.destroyed) response.once("drain", pump);
        };
        pump();
        return;
      }
      case "hang":
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The fixture has no port.");
  return {
    url: `http://127.0.0.1:${address.port}/artifacts`,
    requests,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
