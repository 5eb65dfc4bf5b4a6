// Builds the Responses request of one model call.
import { type HostedToolSpec, ModelProviderError, type ModelRequest } from "@castellan/harness";
import type {
  ResponseCreateParamsStreaming,
  ResponseIncludable,
  Tool,
  WebSearchTool,
} from "openai/resources/responses/responses";
import { PROVIDER } from "./errors.js";
import { type InputItem, toInputItems, userText } from "./input-items.js";
import type { CodexReasoningOptions } from "./options.js";

/** What every request of one binding shares. */
export interface RequestSettings {
  readonly model: string;
  readonly reasoning: CodexReasoningOptions | false;
  readonly maxOutputTokens: number | undefined;
}

/**
 * The streaming request. Nothing is stored at the provider (`store: false`), so reasoning comes
 * back encrypted and the conversation is sent in full each time. A web search asks for its
 * sources (`include: ["web_search_call.action.sources"]`), which the `hosted-tool` events
 * report. Throws `model_unsupported` for a hosted tool it cannot serve.
 */
export function buildParams(request: ModelRequest, settings: RequestSettings): ResponseCreateParamsStreaming {
  const input: InputItem[] = toInputItems(request.messages);
  // Live context goes after the conversation and is never saved.
  if (request.context) input.push(userText(request.context));
  const tools: Tool[] = request.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    // The harness validates inputs against the schema itself; strict mode would reject schemas it does not cover.
    strict: false,
  }));
  for (const hosted of request.hostedTools) tools.push(hostedTool(hosted));
  const { reasoning } = settings;
  // One list for every include, each once.
  const include = new Set<ResponseIncludable>();
  if (reasoning !== false) include.add("reasoning.encrypted_content");
  if (tools.some((tool) => tool.type === "web_search")) include.add("web_search_call.action.sources");
  return {
    model: settings.model,
    stream: true,
    store: false,
    // Assistant output messages without ids are valid input, but not in the SDK's input type.
    input: input as ResponseCreateParamsStreaming["input"],
    ...(request.system ? { instructions: request.system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(include.size > 0 ? { include: [...include] } : {}),
    ...(reasoning !== false && (reasoning.effort !== undefined || reasoning.summary !== undefined)
      ? {
          reasoning: {
            ...(reasoning.effort !== undefined ? { effort: reasoning.effort } : {}),
            ...(reasoning.summary !== undefined ? { summary: reasoning.summary } : {}),
          },
        }
      : {}),
    ...(settings.maxOutputTokens !== undefined ? { max_output_tokens: settings.maxOutputTokens } : {}),
  };
}

/** Options a `web-search` hosted tool may carry, and the native fields they set. */
const webSearchOptions = new Set(["kind", "allowedDomains", "searchContextSize"]);

function unsupported(message: string): ModelProviderError {
  return new ModelProviderError("model_unsupported", message, { provider: PROVIDER });
}

/**
 * The native shape of a hosted tool. Only web search exists here; an option it does not know
 * fails rather than being ignored, so a restriction such as allowed domains is never dropped.
 */
function hostedTool(spec: HostedToolSpec): WebSearchTool {
  const { hosted } = spec;
  if (hosted.kind !== "web-search") {
    throw unsupported(`The codex adapter cannot serve hosted tool "${spec.name}" of kind "${hosted.kind}".`);
  }
  for (const option of Object.keys(hosted)) {
    if (!webSearchOptions.has(option)) {
      throw unsupported(`The codex adapter does not know web-search option "${option}" of hosted tool "${spec.name}".`);
    }
  }
  const tool: { -readonly [K in keyof WebSearchTool]: WebSearchTool[K] } = { type: "web_search" };
  const { allowedDomains, searchContextSize } = hosted;
  if (allowedDomains !== undefined) {
    if (!Array.isArray(allowedDomains) || !allowedDomains.every((domain) => typeof domain === "string")) {
      throw unsupported(`Hosted tool "${spec.name}": allowedDomains must be a list of domain names.`);
    }
    tool.filters = { allowed_domains: allowedDomains };
  }
  if (searchContextSize !== undefined) {
    if (searchContextSize !== "low" && searchContextSize !== "medium" && searchContextSize !== "high") {
      throw unsupported(`Hosted tool "${spec.name}": searchContextSize must be "low", "medium" or "high".`);
    }
    tool.search_context_size = searchContextSize;
  }
  return tool;
}
