import type { ContentBlock } from "./content.js";
import type { JsonObject } from "./json.js";
import type { Message, ToolCall } from "./messages.js";

/** A tool as the model is told about it. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

/** A provider-hosted tool (e.g. web search) the adapter maps to its own wire shape. */
export interface HostedToolSpec {
  readonly name: string;
  readonly hosted: { readonly kind: string; readonly [option: string]: unknown };
}

/** Everything one model call is given. */
export interface ModelRequest {
  /** The system-placed instruction sections, rendered. Empty when there are none. */
  readonly system: string;
  /**
   * Context-placed sections, rendered: current user-side context for this turn only. Adapters
   * send it after the conversation; it is never saved in history. Empty when there are none.
   */
  readonly context: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSpec[];
  readonly hostedTools: readonly HostedToolSpec[];
}

/**
 * Token counts (and cost, where the binding knows its prices) of one model call. Every
 * adapter counts the same way, so budgets compare across providers: `inputTokens` is the
 * whole prompt, cached parts included; the cache fields say how much of it was read from or
 * written to a cache.
 */
export interface Usage {
  /** Every input token, including those read from or written to a cache. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The part of `inputTokens` read from a prompt cache. */
  readonly cacheReadTokens?: number;
  /** The part of `inputTokens` written to a prompt cache. */
  readonly cacheWriteTokens?: number;
  /** In US dollars. */
  readonly costUsd?: number;
  /** Provider-hosted web searches the call ran (Anthropic's `server_tool_use.web_search_requests`). */
  readonly webSearchRequests?: number;
}

/** Why the model stopped. */
export type StopReason = "end" | "tool-calls" | "max-tokens" | "refusal" | "other";

/** A source a hosted search returned: its address and, where the provider gives one, its title. */
export interface HostedToolSource {
  readonly url: string;
  readonly title?: string;
}

/**
 * Activity of a provider-hosted tool (e.g. web search) inside one model call. Adapters emit
 * `started` when the provider begins the call and `completed` or `failed` when its result
 * arrives; the same `callId` ties them. Only queries and sources are reported, never page
 * content: the provider's own blocks carry that, opaquely, as `content` events.
 */
export interface HostedToolStreamEvent {
  readonly type: "hosted-tool";
  /** The provider's id of the hosted call (Anthropic `srvtoolu_…`, Responses `ws_…`). */
  readonly callId: string;
  /** The hosted kind, e.g. `web-search`. */
  readonly kind: string;
  readonly status: "started" | "completed" | "failed";
  /** The queries the provider ran, as it reports them. */
  readonly queries: readonly string[];
  readonly sources: readonly HostedToolSource[];
  /** The provider's error code when `status` is `failed` (e.g. Anthropic `max_uses_exceeded`). */
  readonly errorCode?: string;
}

/**
 * One event of a model stream. A stream that has started never throws: a failure ends it
 * with an `error` event; success ends it with `finish`.
 */
export type ModelStreamEvent =
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "thinking-delta"; readonly text: string }
  /** A complete non-text block (image, opaque provider block) in its place in the content. */
  | { readonly type: "content"; readonly block: ContentBlock }
  | { readonly type: "tool-call"; readonly toolCall: ToolCall }
  /** A provider-hosted tool started, completed or failed, in stream order. */
  | HostedToolStreamEvent
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly stopReason: StopReason }
  | { readonly type: "error"; readonly error: Error };

/** Options of one model call. */
export interface ModelCallOptions {
  /** Aborting it stops the stream; the stream then ends with an `error` event. */
  readonly signal: AbortSignal;
}

/** The streaming contract every model adapter implements. Credentials stay inside it. */
export interface ModelRuntime {
  stream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamEvent>;
}

/** A runtime with its identity: what an agent declares as its `model`. */
export interface ModelBinding extends ModelRuntime {
  /** A stable name for the model, e.g. `anthropic/claude-sonnet-4-5`. */
  readonly specifier: string;
  /**
   * The model's context window in tokens, where the binding knows it from a source it can
   * name (an option, the provider's catalog, a documented table). Undefined when unknown: the
   * Runner then compacts automatically only if `contextBudget.contextWindow` is set, and never
   * guesses a window.
   */
  readonly contextWindow?: number;
}

/** True when the value has a `stream` method, i.e. can serve as a model runtime. */
export function isModelRuntime(value: unknown): value is ModelRuntime {
  return value !== null && typeof value === "object" && typeof (value as { stream?: unknown }).stream === "function";
}
