import { errorMessage } from "@castellan/harness";
import { BrowserToolError, isBrowserToolError } from "@castellan/node-runner";

/** The first line of an error's message (Playwright appends a call log), at most 300 characters. */
export function firstLine(error: unknown): string {
  const message = errorMessage(error);
  // Playwright appends a call log after the first line; the model gets the summary only.
  return (message.split("\n")[0] ?? "").replace(/^[a-zA-Z.]+: /, "").slice(0, 300);
}

/**
 * Classifies a playwright-core failure of a page operation at the boundary where it arises:
 * a BrowserToolError passes through, an abort rethrows the signal's reason, a timeout is
 * `browser_timeout`, anything else `browser_action_failed`.
 */
export function pageFailure(error: unknown, what: string, signal?: AbortSignal): Error {
  if (isBrowserToolError(error)) return error;
  if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
  if (error instanceof Error && error.name === "TimeoutError") {
    return new BrowserToolError(
      "browser_timeout",
      `${what} timed out: ${firstLine(error)}. Take a browser_snapshot and check the target is shown and enabled.`,
      { cause: error },
    );
  }
  return new BrowserToolError(
    "browser_action_failed",
    `${what} failed: ${firstLine(error)}. Take a browser_snapshot to see the page now.`,
    { cause: error },
  );
}
