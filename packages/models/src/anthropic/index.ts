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
  defaultContextWindow,
} from "./options.js";
