import { ToolInputError } from "@castellan/harness";

/** The codes a browser tool's error result starts with. */
export type BrowserToolErrorCode =
  | "browser_closed"
  | "browser_not_open"
  | "browser_unavailable"
  | "browser_unsupported"
  | "browser_url_refused"
  | "browser_origin_not_admitted"
  | "browser_tab_limit"
  | "browser_tab_unknown"
  | "browser_target_not_found"
  | "browser_target_ambiguous"
  | "browser_scope_not_found"
  | "browser_scope_ambiguous"
  | "browser_ref_mismatch"
  | "browser_ref_stale"
  | "browser_continuation_stale"
  | "browser_not_native_select"
  | "browser_option_not_found"
  | "browser_image_too_large"
  | "browser_capture_path_refused"
  | "browser_profile_in_use"
  | "browser_grant_revoked"
  | "browser_action_failed"
  | "browser_timeout";

/**
 * A browser operation or tool input refused: the tool's error result starts with the code and
 * the message says what to do next. Adapters throw it for every failure the model should see.
 */
export class BrowserToolError extends ToolInputError {
  declare readonly code: BrowserToolErrorCode;

  constructor(code: BrowserToolErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "BrowserToolError";
  }
}

/** True for a {@link BrowserToolError}, optionally of one code. */
export function isBrowserToolError(error: unknown, code?: BrowserToolErrorCode): error is BrowserToolError {
  return error instanceof BrowserToolError && (code === undefined || error.code === code);
}
