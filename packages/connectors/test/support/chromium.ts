import { existsSync } from "node:fs";

/** The Chromium every browser test drives. */
export const chromiumPath = "/usr/bin/chromium";

/** Fails (never skips) a browser test on a machine without Chromium, saying what to install. */
export function requireChromium(): void {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Browser tests need Chromium at ${chromiumPath}: apt-get install -y chromium`);
  }
}
