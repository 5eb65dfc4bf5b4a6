import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type ExecutorServerOptions, type ResolvedExecutorOptions, resolveExecutorOptions } from "../config/options.js";
import { ExecutorRequestError } from "../errors.js";
import { jobBodySchema, parseJobBody } from "../jobs/job-body.js";
import { healthView } from "./health.js";
import { readJson } from "./read-json.js";
import { checkHostAndOrigin, checkToken, type RequestPolicy } from "./request-guard.js";
import { sendError, sendInternalError, sendJson } from "./respond.js";
import { matchRoute, methodNotAllowed, type RouteHandlers, routeNotFound } from "./routes.js";

/** A running executor: `listen` binds it, `close` stops it. */
export interface ExecutorServer {
  /** The settings in force, defaults applied. */
  readonly options: ResolvedExecutorOptions;
  /** Binds the configured host and port; resolves with the address actually bound. */
  listen(): Promise<{ readonly host: string; readonly port: number }>;
  /** Refuses new submissions (`shutting-down`), then closes every connection. Idempotent. */
  close(): Promise<void>;
}

const jobStates = new Set(["queued", "running", "succeeded", "failed", "cancelled", "interrupted"]);

/**
 * Creates the job server over `node:http`. Every request passes the Host and Origin checks;
 * every route but `GET /health` needs the bearer token; errors are
 * `{ error: { code, message, fields? } }` with the wire code, never echoing what was sent.
 * Throws `ExecutorConfigError` for a missing token or a malformed setting.
 */
export function createExecutorServer(options: ExecutorServerOptions = {}): ExecutorServer {
  const resolved = resolveExecutorOptions(options);
  const schema = jobBodySchema(resolved, resolved.allowFileRemotes);
  let port = resolved.port;
  let closing: Promise<void> | undefined;
  const sockets = new Set<Socket>();
  const policy = (): RequestPolicy => ({
    port,
    allowedHosts: resolved.allowedHosts,
    allowedOrigins: resolved.allowedOrigins,
    token: resolved.token,
  });

  const handlers: RouteHandlers = {
    health: ({ response }) =>
      sendJson(
        response,
        200,
        healthView({
          sandboxBoot: "unmeasured",
          sandboxLast: "unmeasured",
          egressTarget: resolved.egressTarget,
          egressLast: "unmeasured",
        }),
      ),
    async submit(kind, { request }) {
      if (closing) throw new ExecutorRequestError("executor_shutting_down", "The server is shutting down.");
      const body = await readJson(request);
      if (kind !== "run") {
        throw new ExecutorRequestError("executor_not_implemented", `POST /${kind} is not served yet.`);
      }
      parseJobBody(body, schema);
      throw new ExecutorRequestError(
        "executor_not_implemented",
        "The body is a valid job; this build checks job bodies but does not run jobs yet.",
      );
    },
    listJobs({ response, url }) {
      const state = url.searchParams.get("state");
      if (state !== null && !jobStates.has(state)) {
        throw new ExecutorRequestError("executor_invalid_body", "state must be one of the job states.", [
          { path: "state", message: `one of ${[...jobStates].join(", ")}` },
        ]);
      }
      const limit = url.searchParams.get("limit");
      if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1_000)) {
        throw new ExecutorRequestError("executor_invalid_body", "limit must be an integer from 1 to 1000.", [
          { path: "limit", message: "an integer from 1 to 1000" },
        ]);
      }
      sendJson(response, 200, { jobs: [] });
    },
    viewJob: () => {
      throw jobNotFound();
    },
    cancelJob: () => {
      throw jobNotFound();
    },
    jobEvents: () => {
      throw jobNotFound();
    },
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    checkHostAndOrigin(request, policy());
    // The raw path: URL parsing would resolve `/jobs/..` to `/` before the id is checked.
    const raw = request.url ?? "/";
    const url = new URL(raw.startsWith("/") ? raw : "/", "http://executor.invalid");
    const route = matchRoute(raw.split("?")[0] ?? "/", handlers);
    if (!route) throw routeNotFound();
    const method = request.method ?? "GET";
    const handler = route.methods[method];
    if (!handler) throw methodNotAllowed(Object.keys(route.methods));
    if (!route.open) checkToken(request, policy());
    await handler({ request, response, url, ...(route.jobId !== undefined ? { jobId: route.jobId } : {}) });
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof ExecutorRequestError) {
        // A refused body is not read on: the connection closes after the answer.
        if (!request.readableEnded) response.setHeader("connection", "close");
        sendError(response, error);
        if (!request.readableEnded) response.once("finish", () => request.destroy());
      } else {
        sendInternalError(response);
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  return {
    options: resolved,
    listen() {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(resolved.port, resolved.host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          port = address.port;
          resolve({ host: address.address, port: address.port });
        });
      });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** No job of the id exists (the id is never echoed). */
function jobNotFound(): ExecutorRequestError {
  return new ExecutorRequestError("executor_job_not_found", "No job has this id.");
}
