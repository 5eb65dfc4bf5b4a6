export type { ModelPricing } from "../shared/pricing.js";
export { codex } from "./codex-model.js";
export { codexContextWindow, codexContextWindows } from "./context-windows.js";
export { RESPONSES_PROVIDER } from "./input-items.js";
export type { CodexOptions, CodexReasoningOptions } from "./options.js";
