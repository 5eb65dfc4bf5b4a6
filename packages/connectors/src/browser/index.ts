// @castellan/connectors/browser: the browser() capability (a managed Chromium on playwright-core,
// or a host-picked tab of an existing Chrome) and the existing-Chrome connection.
export { type BrowserCapability, browser } from "./browser.js";
export {
  CdpClosedError,
  CdpCommandError,
  checkEndpoint,
  defaultActionTimeoutMs,
  ExistingChromeConnection,
  type ExistingChromeConnectOptions,
  ExistingChromeError,
  type ExistingChromeErrorCode,
  ExistingChromeGrant,
  type ExistingChromeGrantOptions,
  type ExistingChromeTab,
  type ExistingChromeTarget,
  isExistingChromeError,
  readDevToolsActivePort,
} from "./existing/index.js";
export { aiSnapshotSeamModule } from "./managed/ai-snapshot.js";
export { disabledChromiumFeatures, fixedChromiumArgs, pinnedPlaywrightVersion } from "./managed/launch-options.js";
export { profileDirectory } from "./managed/profiles.js";
export type {
  BrowserCommonOptions,
  BrowserOptions,
  ManagedBrowserOptions,
  SelectedBrowserConnection,
  SelectedBrowserOptions,
  SelectedBrowserTab,
} from "./options.js";
