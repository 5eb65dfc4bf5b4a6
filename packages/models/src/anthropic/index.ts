export type { ModelPricing } from "../shared/pricing.js";
export { anthropicContextWindows, defaultContextWindow } from "./context-windows.js";
export {
  type AnthropicDiscoveryOptions,
  type AnthropicModelInfo,
  listModels,
  verifyKey,
} from "./discovery.js";
export { anthropic } from "./model.js";
export {
  ANTHROPIC_CACHE_RATES,
  type AnthropicOptions,
  type AnthropicThinking,
  DEFAULT_MAX_OUTPUT_TOKENS,
} from "./options.js";
