// Hosted tools on Anthropic: the `web-search` kind as Anthropic's web search server tool
// (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool), and what its
// stream blocks (`server_tool_use`, `web_search_tool_result`) report as `hosted-tool` events.
import type { Anthropic } from "@anthropic-ai/sdk";
import {
  type HostedToolSource,
  type HostedToolSpec,
  type HostedToolStreamEvent,
  ModelProviderError,
  type ToolSpec,
} from "@castellan/harness";
import { PROVIDER } from "./errors.js";

/** The hosted kind this adapter serves. */
export const WEB_SEARCH_KIND = "web-search";
/** The native name of the web search server tool, in the request and in `server_tool_use` blocks. */
export const WEB_SEARCH_NAME = "web_search";
/** The server tool version sent. */
export const WEB_SEARCH_TYPE = "web_search_20250305";

/** The options a `web-search` hosted tool may carry here (besides `kind`). */
const WEB_SEARCH_OPTIONS: ReadonlySet<string> = new Set(["kind", "allowedDomains", "blockedDomains", "maxUses"]);

/**
 * The server tools of a request's hosted tools. Only `web-search` is served, as
 * `{ type: "web_search_20250305", name: "web_search", allowed_domains?, blocked_domains?, max_uses? }`;
 * the hosted spec's own name appears only in messages, since Anthropic fixes the tool's name.
 * Throws `model_unsupported` for another kind, an option Anthropic has no field for
 * (`searchContextSize`, unknown options) or a malformed one, `allowedDomains` together with
 * `blockedDomains` (Anthropic accepts one or the other), a second web search, or a function
 * tool that already uses the name `web_search`: a restriction is never silently dropped.
 */
export function toServerTools(
  hosted: readonly HostedToolSpec[],
  tools: readonly ToolSpec[],
): Anthropic.WebSearchTool20250305[] {
  const serverTools: Anthropic.WebSearchTool20250305[] = [];
  for (const spec of hosted) {
    const label = `hosted tool "${spec.name}"`;
    if (spec.hosted.kind !== WEB_SEARCH_KIND) {
      throw unsupported(`The Anthropic adapter cannot serve ${label} of kind "${spec.hosted.kind}".`);
    }
    if (serverTools.length > 0) {
      throw unsupported(`The Anthropic adapter serves one web search per request; ${label} is a second one.`);
    }
    if (tools.some((tool) => tool.name === WEB_SEARCH_NAME)) {
      throw unsupported(
        `The Anthropic adapter cannot serve ${label}: a function tool is already named "${WEB_SEARCH_NAME}", the name Anthropic gives its web search.`,
      );
    }
    serverTools.push(webSearchTool(spec, label));
  }
  return serverTools;
}

function webSearchTool(spec: HostedToolSpec, label: string): Anthropic.WebSearchTool20250305 {
  const { hosted } = spec;
  for (const option of Object.keys(hosted)) {
    if (option === "searchContextSize") {
      throw unsupported(`Anthropic's web search has no searchContextSize; remove it from ${label}.`);
    }
    if (!WEB_SEARCH_OPTIONS.has(option)) {
      throw unsupported(`The Anthropic adapter does not know web-search option "${option}" of ${label}.`);
    }
  }
  const { allowedDomains, blockedDomains, maxUses } = hosted;
  if (allowedDomains !== undefined && blockedDomains !== undefined) {
    throw unsupported(`Anthropic's web search takes allowedDomains or blockedDomains, not both (${label}).`);
  }
  const tool: Anthropic.WebSearchTool20250305 = { type: WEB_SEARCH_TYPE, name: WEB_SEARCH_NAME };
  if (allowedDomains !== undefined) tool.allowed_domains = domains(allowedDomains, "allowedDomains", label);
  if (blockedDomains !== undefined) tool.blocked_domains = domains(blockedDomains, "blockedDomains", label);
  if (maxUses !== undefined) {
    if (typeof maxUses !== "number" || !Number.isInteger(maxUses) || maxUses <= 0) {
      throw unsupported(`The maxUses of ${label} must be a positive integer.`);
    }
    tool.max_uses = maxUses;
  }
  return tool;
}

function domains(value: unknown, option: string, label: string): string[] {
  if (!Array.isArray(value) || !value.every((domain) => typeof domain === "string" && domain.length > 0)) {
    throw unsupported(`The ${option} of ${label} must be a list of domain names.`);
  }
  return [...value];
}

function unsupported(message: string): ModelProviderError {
  return new ModelProviderError("model_unsupported", message, { provider: PROVIDER, retryable: false });
}

type Status = HostedToolStreamEvent["status"];

/**
 * The web searches of one streamed message: the `hosted-tool` events their blocks produce, each
 * status once per call id. `started` comes with the `server_tool_use` block (its query is then
 * complete); `completed` or `failed` with the `web_search_tool_result` that names the call. Only
 * the queries, the results' URLs and titles and an error code are reported: the page content
 * (`encrypted_content`) stays in the opaque block.
 */
export class WebSearchEvents {
  /** The queries of each call seen, by call id. */
  private readonly queries = new Map<string, readonly string[]>();
  private readonly reported = new Set<string>();

  /** The events a complete block produces: none for blocks other than web search ones. */
  of(block: Readonly<Record<string, unknown>>): HostedToolStreamEvent[] {
    if (block.type === "server_tool_use" && block.name === WEB_SEARCH_NAME && typeof block.id === "string") {
      const queries = queriesOf(block.input);
      this.queries.set(block.id, queries);
      return this.once(block.id, "started", queries, []);
    }
    if (block.type === "web_search_tool_result" && typeof block.tool_use_id === "string") {
      const id = block.tool_use_id;
      const queries = this.queries.get(id) ?? [];
      // A result whose call this stream never showed still reports a start first.
      const events = this.once(id, "started", queries, []);
      if (Array.isArray(block.content)) {
        events.push(...this.once(id, "completed", queries, sourcesOf(block.content)));
      } else {
        const code = (block.content as { error_code?: unknown } | null)?.error_code;
        events.push(...this.once(id, "failed", queries, [], typeof code === "string" ? code : undefined));
      }
      return events;
    }
    return [];
  }

  private once(
    callId: string,
    status: Status,
    queries: readonly string[],
    sources: readonly HostedToolSource[],
    errorCode?: string,
  ): HostedToolStreamEvent[] {
    const key = `${status}\u0000${callId}`;
    if (this.reported.has(key)) return [];
    this.reported.add(key);
    return [
      {
        type: "hosted-tool",
        callId,
        kind: WEB_SEARCH_KIND,
        status,
        queries,
        sources,
        ...(errorCode === undefined ? {} : { errorCode }),
      },
    ];
  }
}

/** The queries of a web search input: `query`, and `queries` where a version sends a list. */
function queriesOf(input: unknown): string[] {
  if (input === null || typeof input !== "object") return [];
  const { query, queries } = input as { query?: unknown; queries?: unknown };
  const found: string[] = [];
  if (typeof query === "string" && query) found.push(query);
  if (Array.isArray(queries)) {
    for (const each of queries) if (typeof each === "string" && each && !found.includes(each)) found.push(each);
  }
  return found;
}

/** The URL and title of each `web_search_result`; anything else in the list is passed over. */
function sourcesOf(content: readonly unknown[]): HostedToolSource[] {
  const sources: HostedToolSource[] = [];
  for (const result of content) {
    if (result === null || typeof result !== "object") continue;
    const { url, title } = result as { url?: unknown; title?: unknown };
    if (typeof url !== "string" || !url) continue;
    sources.push(typeof title === "string" ? { url, title } : { url });
  }
  return sources;
}
