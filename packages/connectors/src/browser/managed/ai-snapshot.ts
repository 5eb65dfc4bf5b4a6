// The seam: the ONLY module that calls playwright-core's AI snapshot and its `aria-ref=`
// selector. Both belong to the pinned release (see the README); a test fails when their shape
// changes. Playwright keeps one ref map per frame, replaced by each AI snapshot, so callers
// read focus before the snapshot and resolve refs against the latest one.

import { BrowserToolError } from "@castellan/node-runner";
import type { Locator, Page } from "playwright-core";

/** The module named in a seam failure, so the message says where to look. */
export const aiSnapshotSeamModule = "@castellan/connectors managed/ai-snapshot.ts";

/** A ref as the AI snapshot writes it; anything else is never put into a selector. */
const refShape = /^[a-z0-9]{1,32}$/;

function seamFailure(what: string, cause?: unknown): BrowserToolError {
  return new BrowserToolError(
    "browser_unavailable",
    `playwright-core's AI snapshot no longer has the shape ${aiSnapshotSeamModule} expects (${what}); ` +
      "install the pinned playwright-core 1.64.1 or update that module.",
    { cause },
  );
}

/**
 * The page's AI snapshot (`page.ariaSnapshot({ mode: "ai" })`): YAML-like lines, elements
 * marked `[ref=…]`. Replaces the frame's ref map.
 *
 * @throws BrowserToolError `browser_unavailable` naming this module when the result is not a string.
 */
export async function takeAiSnapshot(page: Page, options: { timeout: number; signal?: AbortSignal }): Promise<string> {
  const snapshot: unknown = await page.ariaSnapshot({ mode: "ai", timeout: options.timeout, signal: options.signal });
  if (typeof snapshot !== "string") throw seamFailure(`a ${typeof snapshot} instead of a string`);
  return snapshot;
}

/**
 * The element `ref` names in the latest AI snapshot of its frame, through the `aria-ref=`
 * selector.
 *
 * @throws BrowserToolError `browser_ref_stale` for a value that is not a snapshot ref.
 */
export function refLocator(page: Page, ref: string): Locator {
  if (typeof ref !== "string" || !refShape.test(ref)) {
    throw new BrowserToolError(
      "browser_ref_stale",
      "That ref is not one of the latest observation; take a browser_snapshot and use its refs.",
    );
  }
  return page.locator(`aria-ref=${ref}`);
}
