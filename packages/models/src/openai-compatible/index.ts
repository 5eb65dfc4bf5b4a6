export type { ModelPricing } from "../shared/pricing.js";
export { type OpenAICompatibleOptions, openaiCompatible } from "./openai-compatible.js";
