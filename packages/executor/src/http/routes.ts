import type { IncomingMessage, ServerResponse } from "node:http";
import { ExecutorRequestError } from "../errors/errors.js";
import { jobIdOfSegment } from "../registry/job-id.js";

/** What a matched route is handed. */
export interface RouteRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  /** The route's job id, checked, where the path has one. */
  readonly jobId?: string;
}

/** The handlers of the protocol's routes; `submit` is given the kind the submitting route names. */
export interface RouteHandlers<Kind extends string = string> {
  health(route: RouteRequest): Promise<void> | void;
  submit(kind: Kind, route: RouteRequest): Promise<void> | void;
  listJobs(route: RouteRequest): Promise<void> | void;
  viewJob(route: RouteRequest): Promise<void> | void;
  cancelJob(route: RouteRequest): Promise<void> | void;
  jobEvents(route: RouteRequest): Promise<void> | void;
}

type Handler = (route: RouteRequest) => Promise<void> | void;

interface Matched {
  readonly methods: Readonly<Record<string, Handler>>;
  readonly jobId?: string;
}

/**
 * Whether a request may skip the bearer token: only exactly `GET /health` (the spec's liveness
 * probe, which carries no job data). Decided on the method and raw path alone, before routing,
 * so that `POST /health`, `HEAD /health` or any unknown path without the token is 401.
 */
export function isOpenRequest(method: string, path: string): boolean {
  return method === "GET" && path === "/health";
}

/**
 * The route of a raw (not normalized) path, or undefined; a malformed job id is
 * `invalid-job-id`. `POST /<route>` submits the kind `submitRoutes` maps that route to.
 */
export function matchRoute<Kind extends string>(
  path: string,
  handlers: RouteHandlers<Kind>,
  submitRoutes: ReadonlyMap<string, Kind>,
): Matched | undefined {
  if (path === "/health") return { methods: { GET: handlers.health } };
  const kind = path.startsWith("/") ? submitRoutes.get(path.slice(1)) : undefined;
  if (kind !== undefined) return { methods: { POST: (route) => handlers.submit(kind, route) } };
  if (path === "/jobs") return { methods: { GET: handlers.listJobs } };
  if (!path.startsWith("/jobs/")) return undefined;
  // Everything between /jobs/ and a known suffix is the id, so `a/b` or `..` is refused as one.
  const rest = path.slice("/jobs/".length);
  const suffix = /\/(cancel|events)$/.exec(rest)?.[1];
  const jobId = jobIdOfSegment(suffix ? rest.slice(0, -(suffix.length + 1)) : rest);
  if (suffix === "cancel") return { methods: { POST: handlers.cancelJob }, jobId };
  if (suffix === "events") return { methods: { GET: handlers.jobEvents }, jobId };
  return { methods: { GET: handlers.viewJob }, jobId };
}

/** The refusal of a method the route does not serve (OPTIONS included: there is no CORS). */
export function methodNotAllowed(allowed: readonly string[]): ExecutorRequestError {
  return new ExecutorRequestError("executor_method_not_allowed", `This route answers ${allowed.join(", ")} only.`);
}

/** The refusal of a path no route serves. */
export function routeNotFound(): ExecutorRequestError {
  return new ExecutorRequestError("executor_route_not_found", "No route serves this path.");
}
