// The `hosted-tool` events of the Responses API's hosted web search: its `web_search_call`
// output items and their progress events, one status of each call once, in stream order.
import type { HostedToolSource, HostedToolStreamEvent } from "@castellan/harness";

/** The hosted kind a `web_search_call` stands for. */
const KIND = "web-search";

type Status = HostedToolStreamEvent["status"];

/**
 * The web search calls of one response. `started` comes with the first sign of a call (its
 * `response.output_item.added`, or a `response.web_search_call.in_progress` / `.searching`
 * event naming it); `completed`, or `failed` for an item whose status is `failed` or
 * `incomplete`, comes with its `response.output_item.done`. Queries come from `action.query`
 * and `action.queries`, sources from `action.sources` (requested with
 * `include: ["web_search_call.action.sources"]`): only URLs and titles, never page content.
 * Shapes it does not know give empty lists; nothing here throws.
 */
export class WebSearchCallEvents {
  private readonly reported = new Set<string>();

  /** The start of call `id`; `item` is the added output item, when there is one. */
  started(id: string, item?: Readonly<Record<string, unknown>>): HostedToolStreamEvent[] {
    const action = item?.action;
    return this.once(id, "started", queriesOf(action), sourcesOf(action));
  }

  /** The end of a call: its start first when the stream never showed one, then its outcome. */
  done(item: Readonly<Record<string, unknown>>): HostedToolStreamEvent[] {
    if (typeof item.id !== "string") return [];
    const queries = queriesOf(item.action);
    const failed = item.status === "failed" || item.status === "incomplete";
    return [
      ...this.once(item.id, "started", queries, []),
      ...this.once(item.id, failed ? "failed" : "completed", queries, sourcesOf(item.action)),
    ];
  }

  private once(
    callId: string,
    status: Status,
    queries: readonly string[],
    sources: readonly HostedToolSource[],
  ): HostedToolStreamEvent[] {
    const key = `${status}\u0000${callId}`;
    if (this.reported.has(key)) return [];
    this.reported.add(key);
    return [{ type: "hosted-tool", callId, kind: KIND, status, queries, sources }];
  }
}

function record(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `action.query` (deprecated, still sent) and `action.queries`, each once. */
function queriesOf(action: unknown): string[] {
  const { query, queries } = record(action) ?? {};
  const found: string[] = [];
  if (typeof query === "string" && query) found.push(query);
  if (Array.isArray(queries)) {
    for (const each of queries) if (typeof each === "string" && each && !found.includes(each)) found.push(each);
  }
  return found;
}

/** The `url` sources of `action.sources` (`{ type: "url", url }`, with a title where one is given). */
function sourcesOf(action: unknown): HostedToolSource[] {
  const sources = record(action)?.sources;
  if (!Array.isArray(sources)) return [];
  const found: HostedToolSource[] = [];
  for (const source of sources) {
    const { type, url, title } = record(source) ?? {};
    // Other source types (e.g. `api` feeds, named but without a URL) are passed over.
    if ((type !== undefined && type !== "url") || typeof url !== "string" || !url) continue;
    found.push(typeof title === "string" ? { url, title } : { url });
  }
  return found;
}
