import type { Anthropic } from "@anthropic-ai/sdk";
import type { ModelRequest } from "@castellan/harness";
import { toServerTools } from "./hosted-tools.js";
import { toAnthropicMessages } from "./messages.js";
import type { AnthropicThinking } from "./options.js";

/** What a request is built with besides the harness request. */
export interface RequestSettings {
  readonly model: string;
  readonly maxOutputTokens: number;
  readonly thinking: AnthropicThinking | undefined;
}

/**
 * The streaming Messages API request for one model call: `system` as the system prompt, the
 * conversation (with `context` appended as the final user text), the tools with their input
 * schemas followed by the server tools of `hostedTools` (hosted-tools.ts), `max_tokens` and the
 * thinking configuration. Throws `model_unsupported` for a hosted tool it cannot serve, before
 * anything is sent.
 */
export function toAnthropicParams(
  request: ModelRequest,
  settings: RequestSettings,
): Anthropic.MessageCreateParamsStreaming {
  const thinking = thinkingConfig(settings.thinking);
  const tools: Anthropic.ToolUnion[] = [
    ...request.tools.map(
      (tool): Anthropic.Tool => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
      }),
    ),
    ...toServerTools(request.hostedTools, request.tools),
  ];
  return {
    model: settings.model,
    max_tokens: settings.maxOutputTokens,
    stream: true,
    messages: toAnthropicMessages(request.messages, request.context),
    ...(request.system ? { system: request.system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(thinking ? { thinking } : {}),
  };
}

function thinkingConfig(thinking: AnthropicThinking | undefined): Anthropic.ThinkingConfigParam | undefined {
  if (thinking === undefined) return undefined;
  if (thinking === "off") return { type: "disabled" };
  if (thinking === "adaptive") return { type: "adaptive" };
  return { type: "enabled", budget_tokens: thinking.budgetTokens };
}
