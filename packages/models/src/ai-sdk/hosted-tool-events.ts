// The `hosted-tool` events of provider-run tools: a `tool-call` part with `providerExecuted`
// of a provider tool this binding mapped from a hosted kind is the call's start, its
// `tool-result` part (with the `source` parts of type url right after it) its outcome.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { HostedToolSource, HostedToolSpec, HostedToolStreamEvent } from "@castellan/harness";

type Part<Type extends LanguageModelV4StreamPart["type"]> = Extract<LanguageModelV4StreamPart, { type: Type }>;
type Status = HostedToolStreamEvent["status"];

/** The hosted kinds reported as `hosted-tool` events. */
const REPORTED_KINDS: ReadonlySet<string> = new Set(["web-search"]);
/**
 * The providers' own names of their web search tools, for a provider that names its parts
 * after them rather than after the tool it was sent (`openai.web_search`, Anthropic's
 * `web_search_20250305`).
 */
const NATIVE_WEB_SEARCH_NAMES: readonly string[] = ["web_search", "web_search_preview"];

/** Tool name → hosted kind, for the request's hosted tools of a reported kind. */
export function hostedKinds(hosted: readonly HostedToolSpec[]): ReadonlyMap<string, string> {
  const kinds = new Map<string, string>();
  for (const spec of hosted) if (REPORTED_KINDS.has(spec.hosted.kind)) kinds.set(spec.name, spec.hosted.kind);
  if ([...kinds.values()].includes("web-search")) {
    for (const name of NATIVE_WEB_SEARCH_NAMES) if (!kinds.has(name)) kinds.set(name, "web-search");
  }
  return kinds;
}

interface Pending {
  readonly callId: string;
  readonly kind: string;
  readonly status: Status;
  readonly queries: readonly string[];
  readonly sources: HostedToolSource[];
  readonly errorCode: string | undefined;
}

/**
 * The hosted tool calls of one stream, each status once per call id, in stream order. A
 * result's event waits for the `source` parts (type url) that follow it, whose URLs and titles
 * join its sources; the next other part releases it (`flush`). Queries come from the call's
 * input (`query`, `queries`) or the result's `action`; sources from a result that is a list of
 * `{ url, title? }` or holds one as `sources`. Only URLs, titles and an error code are read,
 * never page content, and a shape it does not know gives empty lists: nothing here throws.
 */
export class HostedToolEvents {
  private readonly queries = new Map<string, readonly string[]>();
  private readonly reported = new Set<string>();
  private pending: Pending | undefined;

  constructor(private readonly kinds: ReadonlyMap<string, string>) {}

  /** The start of a provider-run call of a hosted tool; nothing for any other call. */
  call(part: Part<"tool-call">, input: unknown): HostedToolStreamEvent[] {
    const kind = part.providerExecuted ? this.kinds.get(part.toolName) : undefined;
    if (kind === undefined) return [];
    const queries = queriesOf(input);
    this.queries.set(part.toolCallId, queries);
    return this.once(part.toolCallId, kind, "started", queries, []);
  }

  /** A final result of a hosted tool: its start if none was seen; its outcome waits for its sources. */
  result(part: Part<"tool-result">): HostedToolStreamEvent[] {
    const kind = this.kinds.get(part.toolName);
    if (kind === undefined || part.preliminary) return [];
    const { toolCallId } = part;
    const result: unknown = part.result;
    const action = field(result, "action");
    const fromResult = queriesOf(action);
    const queries = fromResult.length > 0 ? fromResult : (this.queries.get(toolCallId) ?? []);
    const events = this.once(toolCallId, kind, "started", queries, []);
    const errorCode = errorCodeOf(result);
    const failed = part.isError === true || errorCode !== undefined || isErrorShape(result);
    const status: Status = failed ? "failed" : "completed";
    if (!this.reported.has(key(toolCallId, status))) {
      events.push(...this.flush());
      this.pending = {
        callId: toolCallId,
        kind,
        status,
        queries,
        sources: failed ? [] : sourcesOf(result),
        errorCode,
      };
    }
    return events;
  }

  /** A `source` part: a URL source joins the result just reported, if it completed. */
  source(part: Part<"source">): void {
    const pending = this.pending;
    if (pending?.status !== "completed" || part.sourceType !== "url") return;
    const { url, title } = part as { url?: unknown; title?: unknown };
    if (typeof url !== "string" || !url || pending.sources.some((source) => source.url === url)) return;
    pending.sources.push(typeof title === "string" ? { url, title } : { url });
  }

  /** The outcome waiting for its sources, if any. */
  flush(): HostedToolStreamEvent[] {
    const pending = this.pending;
    if (!pending) return [];
    this.pending = undefined;
    return this.once(pending.callId, pending.kind, pending.status, pending.queries, pending.sources, pending.errorCode);
  }

  private once(
    callId: string,
    kind: string,
    status: Status,
    queries: readonly string[],
    sources: readonly HostedToolSource[],
    errorCode?: string,
  ): HostedToolStreamEvent[] {
    const id = key(callId, status);
    if (this.reported.has(id)) return [];
    this.reported.add(id);
    return [
      {
        type: "hosted-tool",
        callId,
        kind,
        status,
        queries,
        sources,
        ...(errorCode === undefined ? {} : { errorCode }),
      },
    ];
  }
}

function key(callId: string, status: Status): string {
  return `${status}\u0000${callId}`;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** `query` and `queries` of a call's input or a result's action, each once. */
function queriesOf(value: unknown): string[] {
  const found: string[] = [];
  const query = field(value, "query");
  if (typeof query === "string" && query) found.push(query);
  const queries = field(value, "queries");
  if (Array.isArray(queries)) {
    for (const each of queries) if (typeof each === "string" && each && !found.includes(each)) found.push(each);
  }
  return found;
}

/** The error code a failed result names (`errorCode` as the AI SDK's Anthropic provider maps it, or `error_code`). */
function errorCodeOf(result: unknown): string | undefined {
  const code = field(result, "errorCode") ?? field(result, "error_code");
  return typeof code === "string" && code ? code : undefined;
}

/** A result object whose type says it is an error (e.g. `web_search_tool_result_error`). */
function isErrorShape(result: unknown): boolean {
  const type = field(result, "type");
  return typeof type === "string" && type.endsWith("_error");
}

/** The `{ url, title? }` entries of a result that is such a list or holds one as `sources`. */
function sourcesOf(result: unknown): HostedToolSource[] {
  const list = Array.isArray(result) ? result : field(result, "sources");
  if (!Array.isArray(list)) return [];
  const sources: HostedToolSource[] = [];
  for (const entry of list) {
    const url = field(entry, "url");
    // An entry without a URL (OpenAI's `api` sources name a feed) has nothing to report.
    if (typeof url !== "string" || !url || sources.some((source) => source.url === url)) continue;
    const title = field(entry, "title");
    sources.push(typeof title === "string" ? { url, title } : { url });
  }
  return sources;
}
