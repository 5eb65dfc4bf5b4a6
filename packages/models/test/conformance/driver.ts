// What an adapter brings to the conformance suite: how to make its binding against the
// loopback fixture, and how its provider writes each scenario's answer on the wire. A new
// adapter passes the suite by adding one of these (drivers/) and listing it in drivers/index.ts.
import type { ServerResponse } from "node:http";
import type { ModelBinding } from "@castellan/harness";
import type { ModelPricing } from "@castellan/models/openai-compatible";
import type { RecordedRequest, SseEvent } from "../support/http-fixture.ts";

/** The failures the suite asks a provider to answer with, each in that provider's documented shape. */
export type ErrorKind =
  /** 401: the key is refused. */
  | "auth"
  /** 403: the key may not do this. */
  | "forbidden"
  /** 404: the model id is unknown. */
  | "unknown-model"
  /** The prompt does not fit the context window (400 or 413, as the provider answers it). */
  | "too-long"
  /** 429. */
  | "rate-limited"
  /** 500. */
  | "server"
  /** 503. */
  | "unavailable"
  /** 529: overloaded (Anthropic's status; proxies of other providers pass it on). */
  | "overloaded";

/** A call's tokens in the harness's convention (input includes the cached parts), for the driver to write its way. */
export interface WireUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** What the suite sets on a binding. */
export interface BindOptions {
  /** Default: the driver's model, which the fixture serves. */
  readonly model?: string;
  /** Default 0: a scenario that retries says so. */
  readonly maxRetries?: number;
  readonly pricing?: ModelPricing;
}

/** A tool result as a recorded request carries it. */
export interface SentToolResult {
  readonly text: string;
  /** The base64 data of the images sent with it, wherever the provider takes them. */
  readonly images: readonly string[];
}

export interface ConformanceDriver {
  /** The adapter's name in test titles and in the exceptions table (exceptions.ts). */
  readonly name: string;
  /** The `provider` on every ModelProviderError it raises. */
  readonly provider: string;
  /** The binding against the fixture at `url`, with the suite's key (support/key.ts). */
  bind(url: string, options?: BindOptions): ModelBinding;
  /** True for a recorded request that is a model call (not a catalog read). */
  isInference(request: RecordedRequest): boolean;
  /** Answers a request that is not a model call (a catalog). Default: none is expected. */
  serveOther?(request: RecordedRequest, response: ServerResponse): void;
  /** Headers the provider sends with a streamed answer (a request id). */
  readonly streamHeaders?: Readonly<Record<string, string>>;

  /** A complete answer: the text in these deltas, then usage (default 12 in, 3 out, nothing cached). */
  text(pieces: readonly string[], usage?: WireUsage): SseEvent[];
  /** A complete answer calling one tool, its arguments streamed in these pieces. */
  toolCall(call: { readonly id: string; readonly name: string; readonly pieces: readonly string[] }): SseEvent[];
  /** A complete answer with one of the adapter's provider blocks holding `marker` (a signature, encrypted reasoning), then `text`. */
  withProviderBlock(marker: string, text: string): SseEvent[];
  /** The events of an answer up to and including its first text delta, `text`; the answer goes on after them. */
  partial(text: string): SseEvent[];
  /** An event framed as the provider frames them, whose data is not JSON. */
  brokenEvent(): SseEvent;
  /** Writes the provider's answer for a failure of `kind`, carrying `message` and the extra `headers`. */
  sendError(
    response: ServerResponse,
    kind: ErrorKind,
    message: string,
    headers?: Readonly<Record<string, string>>,
  ): void;
  /** The result of tool call `callId` in a recorded request's JSON body, or undefined when it is not there. */
  toolResult(body: unknown, callId: string): SentToolResult | undefined;
}
