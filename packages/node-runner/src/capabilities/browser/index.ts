// The Session-scoped browser tools, their plugin and instruction section, and the adapter contract.
export type {
  BrowserDragInput,
  BrowserFillInput,
  BrowserPressKeyInput,
  BrowserSelectOptionInput,
  BrowserTargetInput,
} from "./action-tools.js";
export { createBrowserSessionTools } from "./browser-session-tools.js";
export type { BrowserCaptureInput } from "./capture-tool.js";
export { BrowserToolError, type BrowserToolErrorCode, isBrowserToolError } from "./errors.js";
export { type BrowserNavigateInput, type BrowserSwitchTabInput, maxBrowserTabs } from "./navigation-tools.js";
export { maxPageBytes } from "./observation-pages.js";
export {
  type BrowserSessionTools,
  type BrowserSessionToolsOptions,
  type BrowserToolName,
  browserToolNames,
} from "./options.js";
export {
  type AdmittedUrl,
  canonicalOrigin,
  createOriginAuthority,
  maxBrowserUrlLength,
  type OriginAuthority,
  type OriginAuthorityOptions,
  originOf,
} from "./origins.js";
export { browserSessionPluginName, createBrowserSessionPlugin } from "./plugin.js";
export {
  defaultMaxImageBytes,
  defaultMaxObservationBytes,
  imageBytesBounds,
  observationBytesBounds,
} from "./resolve-options.js";
export { browserSectionName, browserSectionText } from "./section.js";
export type { BrowserSnapshotInput } from "./snapshot-tool.js";
export type { BrowserAdmission } from "./tool-support.js";
export type {
  AdmittedOrigins,
  BrowserAction,
  BrowserCapture,
  BrowserCaptureRequest,
  BrowserFocusedElement,
  BrowserNavigation,
  BrowserObservation,
  BrowserOperationOptions,
  BrowserScope,
  BrowserSession,
  BrowserSessionFactory,
  BrowserSessionOpenRequest,
  BrowserTab,
  BrowserTarget,
  BrowserViewport,
} from "./types.js";
