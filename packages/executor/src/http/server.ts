import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { errorMessage } from "@castellan/harness";
import { setBackgroundPriority } from "@castellan/node-runner";
import { defaultModelFactory } from "../agent/model-factory.js";
import { type ExecutorServerOptions, type ResolvedExecutorOptions, resolveExecutorOptions } from "../config/options.js";
import { parseEgressTarget } from "../egress/egress-target.js";
import { ExecutorRequestError } from "../errors/errors.js";
import { createInventoryMemo } from "../inventory/job-inventory.js";
import { measurement, ServerMeasurements } from "../inventory/measurements.js";
import { agentJob } from "../jobs/agent-job.js";
import { runKinds } from "../jobs/body/coder-body.js";
import { parseJobBody } from "../jobs/body/parse-job-body.js";
import { type JobKindName, jobBodySchemas, jobCredentialFields, jobKinds, kindOfRoute } from "../jobs/kinds.js";
import { sweepRetained } from "../jobs/retention-sweep.js";
import { logLine } from "../log/log.js";
import { type JobState, jobStates } from "../registry/job-record.js";
import { createJobRegistry } from "../registry/job-registry.js";
import { runBootSandboxCheck } from "../sandbox/boot-check.js";
import { healthView } from "./health.js";
import { readJson } from "./read-json.js";
import { checkHostAndOrigin, checkToken, type RequestPolicy } from "./request-guard.js";
import { sendError, sendInternalError, sendJson } from "./respond.js";
import { isOpenRequest, matchRoute, methodNotAllowed, type RouteHandlers, routeNotFound } from "./routes.js";

/** A running executor: `listen` binds it, `close` stops it. */
export interface ExecutorServer {
  /** The settings in force, defaults applied. */
  readonly options: ResolvedExecutorOptions;
  /** Binds the configured host and port; resolves with the address actually bound. */
  listen(): Promise<{ readonly host: string; readonly port: number }>;
  /** Refuses new submissions (`shutting-down`), then closes every connection. Idempotent. */
  close(): Promise<void>;
}

const states: ReadonlySet<string> = new Set(jobStates);

/**
 * Creates the job server over `node:http`. Every request passes the Host and Origin checks,
 * then every request but exactly `GET /health` needs the bearer token, before any routing (an
 * unknown path or a wrong method without it is 401, never 404 or 405); errors are
 * `{ error: { code, message, fields? } }` with the wire code, never echoing what was sent.
 * Throws `ExecutorConfigError` for a missing token or a malformed setting.
 */
export function createExecutorServer(options: ExecutorServerOptions = {}): ExecutorServer {
  const resolved = resolveExecutorOptions(options);
  // The jobs' commands and sandbox workers yield the CPU to this loop (process-wide).
  setBackgroundPriority(resolved.jobNiceness);
  const schemas = jobBodySchemas(resolved);
  let port = resolved.port;
  let closing: Promise<void> | undefined;
  const sockets = new Set<Socket>();
  const policy = (): RequestPolicy => ({
    port,
    allowedHosts: resolved.allowedHosts,
    allowedOrigins: resolved.allowedOrigins,
    token: resolved.token,
  });

  const log = options.log ?? logLine;
  const measurements = new ServerMeasurements();
  const protectedPaths = [
    resolved.dataDirectory,
    resolved.transcriptRoot,
    ...(resolved.tokenFile ? [resolved.tokenFile] : []),
  ];
  const registry = createJobRegistry({
    directory: join(resolved.dataDirectory, "jobs"),
    maxConcurrentJobs: resolved.maxConcurrentJobs,
    credentials: jobCredentialFields(schemas),
    run: agentJob({
      modelFactory: options.modelFactory ?? defaultModelFactory,
      transcriptRoot: resolved.transcriptRoot,
      limits: resolved,
      protectedPaths,
      commitAuthor: resolved.commitAuthor,
      npmUserConfig: resolved.npmUserConfig,
      log,
      ...(options.spawn ? { spawn: options.spawn } : {}),
      inventory: {
        memo: createInventoryMemo(),
        sandboxProbeBinary: resolved.sandboxProbeBinary,
        egressTarget: resolved.egressTarget,
        egressDnsName: resolved.egressDnsName,
        dockerHostSet: resolved.dockerHostSet,
        measurements,
      },
    }),
    log,
  });

  /** Checks a body on its kind's schema and submits it to the registry on the kind's route. */
  const submitKind = <Name extends JobKindName>(name: Name, body: unknown) =>
    registry.submit(jobKinds[name].route, name, parseJobBody(body, schemas[name], runKinds));

  const handlers: RouteHandlers<JobKindName> = {
    health: ({ response }) =>
      sendJson(
        response,
        200,
        healthView({
          sandboxBoot: measurements.sandboxBoot,
          sandboxLast: measurements.sandboxLast,
          egressTarget: resolved.egressTarget,
          egressLast: measurements.egressLast,
        }),
      ),
    async submit(name, { request, response }) {
      if (closing) throw new ExecutorRequestError("executor_shutting_down", "The server is shutting down.");
      const submitted = await submitKind(name, await readJson(request));
      sendJson(response, 202, { jobId: submitted.jobId, state: submitted.state });
    },
    listJobs({ response, url }) {
      const state = url.searchParams.get("state");
      if (state !== null && !states.has(state)) {
        throw new ExecutorRequestError("executor_invalid_body", "state must be one of the job states.", [
          { path: "state", message: `one of ${jobStates.join(", ")}` },
        ]);
      }
      const limit = url.searchParams.get("limit");
      if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1_000)) {
        throw new ExecutorRequestError("executor_invalid_body", "limit must be an integer from 1 to 1000.", [
          { path: "limit", message: "an integer from 1 to 1000" },
        ]);
      }
      sendJson(response, 200, {
        jobs: registry.list({
          ...(state !== null ? { state: state as JobState } : {}),
          limit: limit === null ? 100 : Number(limit),
        }),
      });
    },
    viewJob: ({ response, jobId }) => sendJson(response, 200, registry.view(jobId as string)),
    async cancelJob({ response, jobId }) {
      const cancelled = await registry.cancel(jobId as string);
      sendJson(response, cancelled.changed ? 202 : 200, { jobId, state: cancelled.state });
    },
    jobEvents: ({ request, response, jobId }) => {
      const header = request.headers["last-event-id"];
      const last = typeof header === "string" && /^\d+$/.test(header) ? Number(header) : undefined;
      return registry.follow(jobId as string, response, last);
    },
  };

  /** The retention sweep: at start and hourly, what ended more than `transcriptTtlMs` ago goes. */
  let sweepTimer: ReturnType<typeof setInterval> | undefined;
  async function sweep(): Promise<void> {
    try {
      const report = await sweepRetained({
        jobsDirectory: join(resolved.dataDirectory, "jobs"),
        transcriptRoot: resolved.transcriptRoot,
        ttlMs: resolved.transcriptTtlMs,
        now: Date.now(),
        live: registry.live(),
      });
      registry.forget(report.jobs);
      if (report.jobs.length > 0 || report.transcripts.length > 0) log({ kind: "executor-swept", ...report });
    } catch (error) {
      log({ kind: "executor-sweep-failed", message: errorMessage(error) });
    }
  }

  /** The boot-time sandbox check, in the background: it never delays `listen`. */
  const bootAbort = new AbortController();
  let bootCheck: Promise<void> | undefined;
  function startBootCheck(): void {
    bootCheck = runBootSandboxCheck({
      root: join(resolved.dataDirectory, "sandbox-check"),
      probeBinary: resolved.sandboxProbeBinary,
      timeoutSeconds: resolved.sandboxReadyTimeoutSeconds,
      statusFile: resolved.sandboxStatusFile,
      protectedPaths,
      signal: bootAbort.signal,
    }).then(({ record, writeError }) => {
      measurements.sandboxBoot = measurement(record.verdict, record.reason, record.at);
      log({ kind: "executor-sandbox-checked", ...record });
      if (writeError)
        log({ kind: "executor-sandbox-status-unwritten", file: resolved.sandboxStatusFile, message: writeError });
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    checkHostAndOrigin(request, policy());
    // The raw path: URL parsing would resolve `/jobs/..` to `/` before the id is checked.
    const raw = request.url ?? "/";
    const path = raw.split("?")[0] ?? "/";
    const method = request.method ?? "GET";
    // The token comes before routing: without it, a 404 or 405 would map the routes to anyone.
    if (!isOpenRequest(method, path)) checkToken(request, policy());
    const url = new URL(raw.startsWith("/") ? raw : "/", "http://executor.invalid");
    const route = matchRoute(path, handlers, kindOfRoute);
    if (!route) throw routeNotFound();
    const handler = route.methods[method];
    if (!handler) throw methodNotAllowed(Object.keys(route.methods));
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
    async listen() {
      // Jobs a stopped server left are marked interrupted before anything is accepted.
      await registry.open();
      await sweep();
      if (resolved.egressTarget !== undefined && parseEgressTarget(resolved.egressTarget) === undefined) {
        log({
          kind: "executor-egress-target-invalid",
          target: resolved.egressTarget,
          message:
            "The egress target is not an IPv4:port or [IPv6]:port literal; the egress check will not be carried out.",
        });
      }
      startBootCheck();
      sweepTimer = setInterval(() => void sweep(), 3_600_000);
      sweepTimer.unref();
      return await new Promise((resolve, reject) => {
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
      closing ??= (async () => {
        if (sweepTimer) clearInterval(sweepTimer);
        bootAbort.abort();
        await registry.close();
        await bootCheck;
        await new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          server.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        });
      })();
      return closing;
    },
  };
}
