// The loopback server of one conformance scenario: model calls answered in turn by the
// scenario's handlers, anything else (a catalog) by the driver.
import type { ServerResponse } from "node:http";
import {
  type FixtureHandler,
  type HttpFixture,
  type RecordedRequest,
  type SseEvent,
  sendSse,
  startHttpFixture,
} from "../../support/http-fixture.ts";
import type { ConformanceDriver } from "../driver.ts";

/** A running scenario server. */
export interface ScenarioFixture extends HttpFixture {
  /** The model calls it received, in order. */
  inference(): RecordedRequest[];
}

/**
 * Starts a server whose n-th model call is answered by the n-th handler (the last one answers
 * every later call); other requests go to the driver's `serveOther`.
 */
export async function serve(driver: ConformanceDriver, ...handlers: FixtureHandler[]): Promise<ScenarioFixture> {
  let calls = 0;
  const fixture = await startHttpFixture((request, response) => {
    if (!driver.isInference(request)) {
      if (driver.serveOther) return driver.serveOther(request, response);
      throw new Error(`unexpected request ${request.method} ${request.path}`);
    }
    const handler = handlers[Math.min(calls++, handlers.length - 1)];
    if (!handler) throw new Error("no answer prepared");
    return handler(request, response);
  });
  return Object.assign(fixture, { inference: () => fixture.requests.filter((request) => driver.isInference(request)) });
}

/** A handler streaming `events` with the driver's headers. */
export function stream(
  driver: ConformanceDriver,
  events: readonly SseEvent[],
  options: Parameters<typeof sendSse>[2] = {},
): FixtureHandler {
  return (_request, response) =>
    sendSse(response, events, { ...options, headers: { ...driver.streamHeaders, ...options.headers } });
}

/** A handler answering with the driver's failure of `kind`. */
export function fail(
  driver: ConformanceDriver,
  kind: Parameters<ConformanceDriver["sendError"]>[1],
  message = "Refused.",
  headers: Readonly<Record<string, string>> = {},
): FixtureHandler {
  return (_request, response: ServerResponse) => driver.sendError(response, kind, message, headers);
}
