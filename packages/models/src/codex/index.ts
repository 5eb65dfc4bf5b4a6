export { codex } from "./codex-model.js";
export { codexContextWindow, codexContextWindows } from "./context-windows.js";
export { RESPONSES_PROVIDER } from "./input-items.js";
export type { CodexOptions, CodexPricing, CodexReasoningOptions } from "./options.js";
