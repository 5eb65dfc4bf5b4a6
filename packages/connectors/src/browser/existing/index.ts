// A tab of a Chrome the host already runs, over its browser-level DevTools WebSocket.
export { CdpClosedError, CdpCommandError } from "./cdp-transport.js";
export {
  ExistingChromeConnection,
  type ExistingChromeConnectOptions,
  type ExistingChromeTab,
} from "./connection.js";
export { checkEndpoint, type ExistingChromeTarget, readDevToolsActivePort } from "./endpoint.js";
export { ExistingChromeError, type ExistingChromeErrorCode, isExistingChromeError } from "./errors.js";
export { defaultActionTimeoutMs, ExistingChromeGrant, type ExistingChromeGrantOptions } from "./grant.js";
export { crossProcessFrameNote } from "./observe.js";
