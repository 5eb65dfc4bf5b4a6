// A loopback stand-in for GitHub's pull-request REST API, for the executor's tests: one
// repository's pulls in memory (create, list with `head` and `state` filters, get, update),
// bearer-token checks with GitHub's 401, a log of every request, and scripted answers (one-shot
// per route, or a responder that sees every request) for rate limits and refusals.
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";

/** The calls the fixture serves under `/repos/{owner}/{repo}`. */
export type GithubRoute = "create" | "list" | "get" | "update";

/** One request the fixture saw, authorized or not. */
export interface GithubFixtureRequest {
  readonly method: string;
  /** The path as it arrived, API prefix included, without the query. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body, the raw text when it is not JSON, undefined when empty. */
  readonly body: unknown;
  /** Which call it was, undefined for a path the fixture does not serve. */
  readonly route: GithubRoute | undefined;
}

/** An answer to script: a status, headers, and a JSON `body` or a `raw` one. */
export interface ScriptedResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sent as it is, instead of `body`. */
  readonly raw?: string | Buffer;
  /** Sent in pieces with no `content-length`, so only counting the bytes can bound it. */
  readonly chunked?: boolean;
}

/** A pull request in the fixture's store, in GitHub's shape. */
export interface FixturePull {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  draft: boolean;
  html_url: string;
  head: { ref: string; sha: string; label: string };
  base: { ref: string };
}

/** What `seed` takes: a head branch, and anything else to differ from the defaults. */
export interface SeededPull {
  readonly head: string;
  readonly base?: string;
  readonly title?: string;
  readonly body?: string | null;
  readonly state?: "open" | "closed";
  readonly draft?: boolean;
  readonly sha?: string;
}

/** A running fixture; close it in afterEach. */
export interface GithubFixture {
  /** What a host's `apiURL` is: `http://127.0.0.1:<port>` and the prefix. */
  readonly apiURL: string;
  readonly repository: string;
  readonly token: string;
  /** Every request, in order. */
  readonly requests: GithubFixtureRequest[];
  /** The store: every pull request, open or closed; tests may change it directly. */
  readonly pulls: FixturePull[];
  /** The requests of one route. */
  requestsTo(route: GithubRoute): GithubFixtureRequest[];
  /** Adds a pull request to the store, numbered after the highest there. */
  seed(pull: SeededPull): FixturePull;
  /** Answers the next requests of `route` with `responses`, one each, before anything else would. */
  queue(route: GithubRoute, ...responses: ScriptedResponse[]): void;
  /** Asks `respond` about every authorized request not answered by the queue; undefined lets the fixture answer. */
  script(respond: ((request: GithubFixtureRequest) => ScriptedResponse | undefined) | undefined): void;
  close(): Promise<void>;
}

/** What `startGithubFixture` serves. */
export interface GithubFixtureOptions {
  /** The bearer token it accepts; default `fixtureToken`. */
  readonly token?: string;
  /** `owner/name`; default `acme/widgets`. */
  readonly repository?: string;
  /** An API path prefix, as GitHub Enterprise has (`/api/v3`); default none. */
  readonly prefix?: string;
}

/** The token a fixture accepts unless told otherwise. */
export const fixtureToken = "ghs_fixtureToken0123456789abcdefABCDEF";

/** GitHub's 422 for a second open pull request from the same head. */
export function alreadyExists(owner: string, branch: string): ScriptedResponse {
  return {
    status: 422,
    body: {
      message: "Validation Failed",
      errors: [
        { resource: "PullRequest", code: "custom", message: `A pull request already exists for ${owner}:${branch}.` },
      ],
      documentation_url: "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
    },
  };
}

/** GitHub's 401 for a token it does not know. */
export const badCredentials: ScriptedResponse = {
  status: 401,
  body: { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" },
};

/** A rate-limit answer: 429 unless `status` says 403, with the headers given. */
export function rateLimited(
  options: { retryAfter?: number; reset?: number; remaining?: number; status?: 403 | 429 } = {},
): ScriptedResponse {
  const headers: Record<string, string> = {};
  if (options.retryAfter !== undefined) headers["retry-after"] = String(options.retryAfter);
  if (options.reset !== undefined) headers["x-ratelimit-reset"] = String(options.reset);
  if (options.remaining !== undefined) headers["x-ratelimit-remaining"] = String(options.remaining);
  return {
    status: options.status ?? 429,
    headers,
    body: { message: "API rate limit exceeded for installation.", documentation_url: "https://docs.github.com/rest" },
  };
}

function fakeSha(seed: string): string {
  return createHash("sha1").update(seed).digest("hex");
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function send(response: ServerResponse, answer: ScriptedResponse): void {
  const payload = answer.raw ?? (answer.body === undefined ? "" : JSON.stringify(answer.body));
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, "utf8");
  response.writeHead(answer.status, {
    "content-type": "application/json; charset=utf-8",
    ...(answer.chunked ? {} : { "content-length": String(bytes.length) }),
    ...answer.headers,
  });
  if (!answer.chunked) {
    response.end(bytes);
    return;
  }
  for (let at = 0; at < bytes.length; at += 65_536) response.write(bytes.subarray(at, at + 65_536));
  response.end();
}

/** Starts a fixture on 127.0.0.1 and a free port. */
export async function startGithubFixture(options: GithubFixtureOptions = {}): Promise<GithubFixture> {
  const token = options.token ?? fixtureToken;
  const repository = options.repository ?? "acme/widgets";
  const [owner = "", name = ""] = repository.split("/");
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  const requests: GithubFixtureRequest[] = [];
  const pulls: FixturePull[] = [];
  const queues = new Map<GithubRoute, ScriptedResponse[]>();
  let responder: ((request: GithubFixtureRequest) => ScriptedResponse | undefined) | undefined;
  let origin = "";

  const routeOf = (method: string, path: string): { route: GithubRoute; number?: number } | undefined => {
    const pullsPath = `${prefix}/repos/${owner}/${name}/pulls`;
    if (path === pullsPath)
      return method === "POST" ? { route: "create" } : method === "GET" ? { route: "list" } : undefined;
    const match = path.startsWith(`${pullsPath}/`) ? /^(\d+)$/.exec(path.slice(pullsPath.length + 1)) : null;
    if (!match) return undefined;
    const number = Number(match[1]);
    return method === "GET" ? { route: "get", number } : method === "PATCH" ? { route: "update", number } : undefined;
  };

  const seed = (pull: SeededPull): FixturePull => {
    const number = pulls.reduce((highest, entry) => Math.max(highest, entry.number), 0) + 1;
    const stored: FixturePull = {
      number,
      title: pull.title ?? `Pull request ${number}`,
      body: pull.body === undefined ? "" : pull.body,
      state: pull.state ?? "open",
      draft: pull.draft ?? false,
      html_url: `${origin}/${owner}/${name}/pull/${number}`,
      head: { ref: pull.head, sha: pull.sha ?? fakeSha(`${pull.head}#${number}`), label: `${owner}:${pull.head}` },
      base: { ref: pull.base ?? "main" },
    };
    pulls.push(stored);
    return stored;
  };

  const serve = (request: GithubFixtureRequest, number: number | undefined): ScriptedResponse => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    switch (request.route) {
      case "list": {
        const state = request.query.state ?? "open";
        const head = request.query.head;
        const listed = pulls.filter((pull) => {
          if (state !== "all" && pull.state !== state) return false;
          if (head === undefined) return true;
          return head.includes(":") ? pull.head.label === head : pull.head.ref === head;
        });
        return { status: 200, body: listed };
      }
      case "create": {
        const missing = ["title", "head", "base"].filter((field) => typeof body[field] !== "string" || !body[field]);
        if (missing.length > 0) {
          return {
            status: 422,
            body: {
              message: "Validation Failed",
              errors: missing.map((field) => ({ resource: "PullRequest", field, code: "missing_field" })),
            },
          };
        }
        const headName = String(body.head);
        const ref = headName.startsWith(`${owner}:`) ? headName.slice(owner.length + 1) : headName;
        const base = String(body.base);
        if (pulls.some((pull) => pull.state === "open" && pull.head.ref === ref && pull.base.ref === base)) {
          return alreadyExists(owner, ref);
        }
        const created = seed({
          head: ref,
          base,
          title: String(body.title),
          body: typeof body.body === "string" ? body.body : null,
          draft: body.draft === true,
        });
        return { status: 201, body: created };
      }
      case "get":
      case "update": {
        const pull = pulls.find((entry) => entry.number === number);
        if (!pull) return { status: 404, body: { message: "Not Found" } };
        if (request.route === "update") {
          if (typeof body.title === "string") pull.title = body.title;
          if (typeof body.body === "string" || body.body === null) pull.body = body.body;
          if (body.state === "open" || body.state === "closed") pull.state = body.state;
          if (typeof body.base === "string") pull.base = { ref: body.base };
        }
        return { status: 200, body: pull };
      }
      default:
        return { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };
    }
  };

  const server = createServer((incoming, response) => {
    const url = new URL(incoming.url ?? "/", "http://fixture.invalid");
    const method = incoming.method ?? "GET";
    const found = routeOf(method, url.pathname);
    readBody(incoming).then(
      (body) => {
        const request: GithubFixtureRequest = {
          method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: incoming.headers,
          body,
          route: found?.route,
        };
        requests.push(request);
        if (incoming.headers.authorization !== `Bearer ${token}`) return send(response, badCredentials);
        const queued = found ? queues.get(found.route)?.shift() : undefined;
        send(response, queued ?? responder?.(request) ?? serve(request, found?.number));
      },
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    apiURL: `${origin}${prefix}`,
    repository,
    token,
    requests,
    pulls,
    requestsTo: (route) => requests.filter((request) => request.route === route),
    seed,
    queue(route, ...responses) {
      queues.set(route, [...(queues.get(route) ?? []), ...responses]);
    },
    script(respond) {
      responder = respond;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
