import type { ModelBinding, ModelStreamEvent } from "@castellan/harness";
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
 * - Provider-hosted tools are not served: a request with `hostedTools` ends with
 *   `model_unsupported` before anything is sent.
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
      if (request.hostedTools.length > 0) {
        const names = request.hostedTools.map((tool) => `${tool.name} (${tool.hosted.kind})`).join(", ");
        yield {
          type: "error",
          error: make("model_unsupported", `The Anthropic adapter does not serve hosted tools: ${names}.`, apiKey, {}),
        };
        return;
      }
      let params: ReturnType<typeof toAnthropicParams>;
      try {
        params = toAnthropicParams(request, settings);
      } catch (error) {
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
