export type { ModelPricing } from "../shared/pricing.js";
export { type AiSdkOptions, aiSdk } from "./ai-sdk-model.js";
export type { AiSdkProviderToolMapping } from "./hosted-tools.js";
export { AI_SDK_PROVIDER, type AiSdkBlockData } from "./provider-blocks.js";
