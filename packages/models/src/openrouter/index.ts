export type { ModelPricing } from "../shared/pricing.js";
export {
  type ListOpenRouterModelsOptions,
  listOpenRouterModels,
  type OpenRouterModel,
  openRouterBaseURL,
} from "./catalog.js";
export { type OpenRouterKeyInfo, type VerifyOpenRouterKeyOptions, verifyOpenRouterKey } from "./key-check.js";
export { type OpenRouterBinding, type OpenRouterOptions, openrouter } from "./openrouter.js";
