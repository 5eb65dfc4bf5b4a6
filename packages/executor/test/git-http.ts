// A loopback git server for the executor's tests: `git http-backend` (the CGI git ships) behind
// a Node HTTP server that wants basic auth whose password is the token. Every request is
// logged with whether it carried the right credentials; receive-pack is on (REMOTE_USER set).
// A test may hold an authorized request (a push's receive-pack POST) before it is served.
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** One request the git server saw. */
export interface GitHttpRequest {
  readonly method: string;
  readonly path: string;
  readonly authorized: boolean;
}

/** Options of `startGitHttpServer`. */
export interface GitHttpOptions {
  /**
   * Called with each authorized request as it arrives (after it is logged); the request is
   * served once what it returns settles (a rejection drops the connection). Default: served at once.
   */
  readonly hold?: (request: GitHttpRequest) => Promise<void> | void;
}

function authorized(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  if (!header.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  return decoded.slice(decoded.indexOf(":") + 1) === token;
}

function serveCgi(root: string, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? "/", "http://git.invalid");
  const backend = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: request.method ?? "GET",
      CONTENT_TYPE: request.headers["content-type"] ?? "",
      REMOTE_USER: "x-access-token",
      REMOTE_ADDR: "127.0.0.1",
      ...(request.headers["content-length"] ? { CONTENT_LENGTH: request.headers["content-length"] } : {}),
      ...(request.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: request.headers["content-encoding"] } : {}),
      ...(typeof request.headers["git-protocol"] === "string" ? { GIT_PROTOCOL: request.headers["git-protocol"] } : {}),
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  request.pipe(backend.stdin);
  let head = Buffer.alloc(0);
  let started = false;
  backend.stdout.on("data", (chunk: Buffer) => {
    if (started) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    started = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    response.write(head.subarray(end + 4));
  });
  backend.once("close", () => response.end());
  backend.once("error", () => response.destroy());
}

/** Serves the bare repositories under `root` on 127.0.0.1; `url(name)` is a repository's URL. */
export async function startGitHttpServer(
  root: string,
  token: string,
  options: GitHttpOptions = {},
): Promise<{ readonly url: (name: string) => string; readonly requests: GitHttpRequest[]; close(): Promise<void> }> {
  const requests: GitHttpRequest[] = [];
  const server: Server = createServer((request, response) => {
    const ok = authorized(request, token);
    const logged: GitHttpRequest = { method: request.method ?? "GET", path: request.url ?? "/", authorized: ok };
    requests.push(logged);
    if (!ok) {
      response.writeHead(401, { "www-authenticate": 'Basic realm="git"' });
      response.end();
      request.resume();
      return;
    }
    if (!options.hold) {
      serveCgi(root, request, response);
      return;
    }
    Promise.resolve()
      .then(() => options.hold?.(logged))
      .then(
        () => (response.destroyed ? undefined : serveCgi(root, request, response)),
        () => response.destroy(),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
