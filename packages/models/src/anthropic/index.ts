export { anthropicContextWindows, defaultContextWindow } from "./context-windows.js";
export {
  type AnthropicDiscoveryOptions,
  type AnthropicModelInfo,
  listModels,
  verifyKey,
} from "./discovery.js";
export { anthropic } from "./model.js";
export {
  type AnthropicOptions,
  type AnthropicPricing,
  type AnthropicThinking,
  DEFAULT_MAX_OUTPUT_TOKENS,
} from "./options.js";
