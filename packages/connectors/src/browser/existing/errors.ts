import { CastellanError } from "@castellan/harness";

/** The codes an {@link ExistingChromeError} carries. */
export type ExistingChromeErrorCode =
  /** The endpoint is not a loopback `ws://` browser-level DevTools URL, or the profile directory is not a `file:` URL. */
  | "existing_chrome_endpoint_refused"
  /** The profile directory has no usable `DevToolsActivePort` file: remote debugging is not on in that Chrome. */
  | "existing_chrome_debugging_off"
  /** The DevTools WebSocket could not be opened, or a discovery command failed. */
  | "existing_chrome_unreachable"
  /** The tab cannot be granted: it is not an `http:`/`https:` page. */
  | "existing_chrome_tab_refused"
  /** The connection is closed. */
  | "existing_chrome_closed";

/**
 * A host-side failure of {@link ExistingChromeConnection} (connecting, listing tabs, granting
 * a tab): a stable `code`, a message saying what to do next and the `cause`. Operations of a
 * granted tab fail with `BrowserToolError` instead, which the model reads.
 */
export class ExistingChromeError extends CastellanError {
  declare readonly code: ExistingChromeErrorCode;

  constructor(code: ExistingChromeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** True for an {@link ExistingChromeError}, optionally of one code. */
export function isExistingChromeError(error: unknown, code?: ExistingChromeErrorCode): error is ExistingChromeError {
  return error instanceof ExistingChromeError && (code === undefined || error.code === code);
}
