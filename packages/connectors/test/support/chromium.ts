import { programPath } from "../../../../test-support/system-programs.ts";

/**
 * The Chromium every browser test drives: test-support's `programPath("chromium")`
 * (`$CASTELLAN_TEST_CHROMIUM`, else `chromium` on PATH), or Debian's path when neither is there
 * (the suites that launch it are skipped then, through `describeNeeding(["chromium"], …)`).
 */
export const chromiumPath = programPath("chromium") ?? "/usr/bin/chromium";

/** Fails a browser test that reached a launch where Chromium is absent, saying what to install. */
export function requireChromium(): void {
  if (programPath("chromium") === undefined) {
    throw new Error(`Browser tests need Chromium (${chromiumPath} is missing): apt-get install -y chromium`);
  }
}
