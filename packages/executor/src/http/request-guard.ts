import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ExecutorRequestError } from "../errors/errors.js";

/** Who may reach the server: the Host names it answers to, the Origins it accepts, and its token. */
export interface RequestPolicy {
  /** The port the server listens on (Host headers must carry it). */
  readonly port: number;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly token: string;
}

/**
 * Refuses a request whose `Host` is not this machine's loopback name and port (or an allowed
 * host): a page in a browser that resolved a name of its own to 127.0.0.1 cannot reach the
 * server. Then any `Origin` not allowed: browsers always send one, drivers do not.
 */
export function checkHostAndOrigin(request: IncomingMessage, policy: RequestPolicy): void {
  const host = (request.headers.host ?? "").toLowerCase();
  const loopback = [`127.0.0.1:${policy.port}`, `localhost:${policy.port}`, `[::1]:${policy.port}`];
  if (!loopback.includes(host) && !policy.allowedHosts.includes(host)) {
    throw new ExecutorRequestError(
      "executor_forbidden_host",
      "The Host header names no address this server answers to.",
    );
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !policy.allowedOrigins.includes(origin.toLowerCase())) {
    throw new ExecutorRequestError("executor_forbidden_origin", "Requests from this Origin are refused.");
  }
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** Refuses a request without the bearer token, comparing SHA-256 digests in constant time. */
export function checkToken(request: IncomingMessage, policy: RequestPolicy): void {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer ([^\s]+)$/.exec(header);
  // Digests have one length, so a wrong length takes the same comparison as a wrong token.
  const given = digest(match?.[1] ?? "");
  if (!match || !timingSafeEqual(given, digest(policy.token))) {
    throw new ExecutorRequestError("executor_unauthorized", "A valid bearer token is required.");
  }
}
