export { type OpenAICompatibleOptions, openaiCompatible } from "./openai-compatible.js";
export type { ModelPricing } from "./pricing.js";
