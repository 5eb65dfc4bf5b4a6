import type { BrowserCaptureRequest } from "@castellan/node-runner";
import type { Page } from "playwright-core";
import type { ManagedTab } from "./tab.js";

/**
 * Applies a capture's viewport and media preferences to the tab (the preferences kept until
 * the next capture) and takes the visible viewport as PNG at device scale 1, animations off.
 */
export async function captureTab(
  tab: ManagedTab,
  request: BrowserCaptureRequest,
  options: { timeout: number; signal: AbortSignal },
): Promise<Uint8Array> {
  const page: Page = tab.page;
  if (request.width !== undefined && request.height !== undefined) {
    await page.setViewportSize({ width: request.width, height: request.height });
  }
  if (request.colorScheme !== undefined) tab.colorScheme = request.colorScheme;
  if (request.reducedMotion !== undefined) tab.reducedMotion = request.reducedMotion;
  await page.emulateMedia({ colorScheme: tab.colorScheme, reducedMotion: tab.reducedMotion });
  const png = await page.screenshot({
    type: "png",
    animations: "disabled",
    scale: "css",
    timeout: options.timeout,
    signal: options.signal,
  });
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
