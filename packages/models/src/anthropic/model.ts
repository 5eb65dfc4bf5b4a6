import { isModelProviderError, type ModelBinding, type ModelStreamEvent } from "@castellan/harness";
import { createClient } from "./client.js";
import { make } from "./errors.js";
import { type AnthropicOptions, resolveOptions } from "./options.js";
import { toAnthropicParams } from "./request.js";
import { streamMessages } from "./stream.js";

/**
 * A model binding on Anthropic's streaming Messages API, through the official SDK.
 *
 * - `specifier` is `anthropic/<model>`; `contextWindow` is the option, or the documented
 *   window of the model's family (`defaultContextWindow`), or absent for an unknown id.
 * - Each request sends `system` as the system prompt, the conversation with `context`
 *   appended as a final user text block, the tools with their input schemas, `max_tokens`
 *   (`maxOutputTokens`, default 4,096) and the thinking configuration.
 * - Thinking and redacted thinking blocks (and any other non-text, non-tool block) are
 *   emitted as `{ type: "provider", provider: "anthropic", data: <the block> }` content in
 *   their place and sent back unchanged, so a restored Session continues a thinking
 *   conversation; thinking text also streams as `thinking-delta` events.
 * - Hosted tools: kind `web-search` is Anthropic's web search server tool
 *   (`web_search_20250305`, named `web_search`; `allowedDomains`, `blockedDomains` — not both —
 *   and `maxUses` map to its fields). Any other kind or option, e.g. `searchContextSize`, ends
 *   the call with `model_unsupported` before anything is sent. Its `server_tool_use` and
 *   `web_search_tool_result` blocks, and text blocks that carry citations, are kept as
 *   `anthropic` provider blocks exactly as received and sent back unchanged (a cited text
 *   still streams as `text-delta`; see messages.ts); the searches are reported as `hosted-tool`
 *   events, and `server_tool_use.web_search_requests` as `Usage.webSearchRequests`.
 *
 * Creating the binding checks the options (throwing DeclarationError) and connects to nothing.
 * The key stays in this closure; it is not a property of the binding and never appears in
 * events or errors.
 */
export function anthropic(options: AnthropicOptions): ModelBinding {
  const settings = resolveOptions(options);
  const { apiKey } = settings;
  const client = createClient({ apiKey, baseURL: settings.baseURL });
  return {
    specifier: `anthropic/${settings.model}`,
    ...(settings.contextWindow !== undefined ? { contextWindow: settings.contextWindow } : {}),
    async *stream(request, { signal }): AsyncGenerator<ModelStreamEvent> {
      let params: ReturnType<typeof toAnthropicParams>;
      try {
        params = toAnthropicParams(request, settings);
      } catch (error) {
        // A hosted tool this adapter cannot serve: refused before anything is sent.
        if (isModelProviderError(error)) {
          yield { type: "error", error };
          return;
        }
        // Only a request that breaks the harness types gets here; a started stream never throws.
        const message = `The request could not be mapped for Anthropic: ${(error as Error)?.message ?? error}`;
        yield { type: "error", error: make("model_bad_request", message, apiKey, { cause: error }) };
        return;
      }
      yield* streamMessages(params, {
        client,
        apiKey,
        pricing: settings.pricing,
        maxRetries: settings.maxRetries,
        signal,
      });
    },
  };
}
