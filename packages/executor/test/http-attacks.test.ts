// The executor's attack corpus for its HTTP front, over real loopback HTTP. Case: a caller
// without the token maps the server by probing (an unknown path, a wrong method, a malformed
// job id, a preflight, a huge body). Every such request must be 401 `unauthorized` before any
// routing, so the answer says nothing about which routes and methods exist; only exactly
// `GET /health` answers without the token.
//
// The corpus is shown able to fail: the same probe against a tiny server in this file that
// composes the server's own routing and token check in the unsafe order (route, then method,
// then token, as the executor did before) reports the 404 and 405 it leaks.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkToken } from "../src/http/request-guard.js";
import { sendError } from "../src/http/respond.js";
import { matchRoute, methodNotAllowed, type RouteHandlers, routeNotFound } from "../src/http/routes.js";
import { ExecutorRequestError } from "../src/index.js";
import { kindOfRoute } from "../src/jobs/kinds.js";
import { send, startServer, testToken } from "./support.ts";

/** Requests a caller without the token may try; each must be 401 whatever it names. */
const probes: readonly (readonly [method: string, path: string])[] = [
  ["GET", "/nowhere"],
  ["GET", "/"],
  ["GET", "/admin"],
  ["GET", "/jobs/../health"],
  ["GET", "/health/"],
  ["POST", "/health"],
  ["HEAD", "/health"],
  ["DELETE", "/jobs/job-1"],
  ["PUT", "/run"],
  ["GET", "/run"],
  ["OPTIONS", "/run"],
  ["PATCH", "/jobs"],
  ["POST", "/jobs/job-1"],
  ["GET", "/jobs/job-1/cancel"],
  ["POST", "/jobs/job-1/events"],
  ["GET", "/jobs/.."],
  ["GET", "/jobs/a%2Fb/events"],
  ["GET", `/jobs/${"x".repeat(129)}`],
  ["GET", "/jobs/job-1"],
  ["GET", "/jobs/job-1/events"],
  ["POST", "/run"],
  ["POST", "/bootstrap"],
  ["POST", "/blueprint"],
];

/** The credentials a probe comes with: none, a wrong token, a wrong scheme, the token cut short. */
const wrongCredentials: readonly (string | null)[] = [
  null,
  "wrong-token-0123456789abcdef-01234567",
  testToken.slice(0, -1),
];

/** Every probe that was not a bare 401 `unauthorized`, described; empty when the front is safe. */
async function unauthenticatedLeaks(port: number): Promise<string[]> {
  const leaks: string[] = [];
  for (const auth of wrongCredentials) {
    for (const [method, path] of probes) {
      const answer = await send(port, method, path, { auth });
      const code = method === "HEAD" ? "unauthorized" : answer.json?.error?.code;
      if (answer.status !== 401 || code !== "unauthorized") {
        leaks.push(`${method} ${path} (auth ${auth === null ? "none" : "wrong"}): ${answer.status} ${code}`);
      }
    }
    const basic = await send(port, "GET", "/nowhere", { auth: null, headers: { authorization: `Basic ${testToken}` } });
    if (basic.status !== 401) leaks.push(`GET /nowhere (Basic): ${basic.status}`);
  }
  return leaks;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The unsafe order, built from the server's own parts: routing and the method before the token. */
async function routeFirstServer(): Promise<number> {
  const noop = () => undefined;
  const handlers: RouteHandlers = {
    health: noop,
    submit: noop,
    listJobs: noop,
    viewJob: noop,
    cancelJob: noop,
    jobEvents: noop,
  };
  const server: Server = createServer((request, response) => {
    try {
      const route = matchRoute((request.url ?? "/").split("?")[0] ?? "/", handlers, kindOfRoute);
      if (!route) throw routeNotFound();
      if (!route.methods[request.method ?? "GET"]) throw methodNotAllowed(Object.keys(route.methods));
      checkToken(request, { port: 0, allowedHosts: [], allowedOrigins: [], token: testToken });
      response.writeHead(204).end();
    } catch (error) {
      if (error instanceof ExecutorRequestError) sendError(response, error);
      else response.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

describe("attack corpus: the executor's HTTP front", () => {
  it("answers 401 to every unauthenticated request before routing: an unknown path or a wrong method is never 404 or 405", async () => {
    const { server, port } = await startServer();
    closers.push(() => server.close());
    expect(await unauthenticatedLeaks(port)).toEqual([]);
    // A body without the token is refused unread, whatever it holds.
    const body = await send(port, "POST", "/nowhere", { auth: null, body: Buffer.alloc(65_536, 0x20) });
    expect(body.status).toBe(401);
    // With the token the same probes do reach the routing.
    expect((await send(port, "GET", "/nowhere")).status).toBe(404);
    expect((await send(port, "DELETE", "/jobs/job-1")).status).toBe(405);
    expect((await send(port, "POST", "/health")).status).toBe(405);
    // The one open request.
    expect((await send(port, "GET", "/health", { auth: null })).status).toBe(200);
  });

  it("detects the unsafe order: a front that routes before the token leaks 404 and 405", async () => {
    const port = await routeFirstServer();
    const leaks = await unauthenticatedLeaks(port);
    expect(leaks).toEqual(
      expect.arrayContaining([expect.stringMatching(/^GET \/nowhere \(auth none\): 404 route-not-found$/)]),
    );
    expect(leaks).toEqual(
      expect.arrayContaining([expect.stringMatching(/^DELETE \/jobs\/job-1 \(auth none\): 405 method-not-allowed$/)]),
    );
  });
});
